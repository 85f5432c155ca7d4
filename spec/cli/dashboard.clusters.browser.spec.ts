import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { startDashboard, type Dashboard } from '../../src/cli/dashboard/startDashboard.js';
import { deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import { launchChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js';

// Two clusters on one page, in a real (headless) browser: each with its own (fake) API server.
// One of them goes away mid-run: its view says so, the other goes on as if nothing happened.

let alpha: FakeKubeApiServer;
let beta: FakeKubeApiServer;
let dashboard: Dashboard;
let browser: HeadlessChromium;
let page: Page;

const view = (cluster: string) => page.locator(`section.view[data-cluster="${cluster}"]`);
const stateOf = (cluster: string) =>
  view(cluster).locator('[data-part="connection"]').getAttribute('data-state');

beforeAll(async () => {
  requireChromium(); // fails the whole file, loudly, where the browser is missing
  alpha = await FakeKubeApiServer.start({ bookmarkIntervalMs: 500 });
  beta = await FakeKubeApiServer.start({ bookmarkIntervalMs: 500 });
  alpha.create(deployments, deployment('web', ''));
  alpha.create(pods, pod('web-1', '', { metadata: { labels: { app: 'web' } } }));
  beta.create(deployments, deployment('api', ''));
  beta.create(pods, pod('api-1', '', { metadata: { labels: { app: 'api' } } }));
  dashboard = await startDashboard({
    port: 0,
    clusters: [
      { cluster: alpha.kubeConfig(), clusterName: 'alpha', server: alpha.url, throttleMs: 20 },
      { cluster: beta.kubeConfig(), clusterName: 'beta', server: beta.url, throttleMs: 20 },
    ],
  });
  browser = await launchChromium();
  page = await browser.context.newPage();
  await page.goto(dashboard.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await alpha?.stop();
  await beta?.stop().catch(() => {});
});

describe('kube-rx dashboard of several clusters in Chromium', () => {
  it('shows each cluster in its own view, each live', async () => {
    await view('alpha').locator('[data-pod="default/web-1"]').waitFor({ timeout: 10_000 });
    await view('beta').locator('[data-pod="default/api-1"]').waitFor({ timeout: 10_000 });
    // Each cluster's objects in its own view only.
    await expect(view('alpha').locator('[data-pod="default/api-1"]').count()).resolves.toBe(0);
    await expect(view('beta').locator('[data-deployment="default/web"]').count()).resolves.toBe(0);
    await view('alpha').locator('[data-part="connection"][data-state="live"]').waitFor();
    await view('beta').locator('[data-part="connection"][data-state="live"]').waitFor();
    await expect(view('beta').locator('[data-part="cluster-name"]').textContent()).resolves.toBe(
      'beta',
    );
  });

  it('keeps one cluster live and current while the other is unreachable, and says which', async () => {
    await beta.stop();
    await view('beta')
      .locator('[data-part="connection"]:not([data-state="live"])')
      .waitFor({ timeout: 10_000 });
    expect(['reconnecting', 'connecting', 'relisting']).toContain(await stateOf('beta'));
    // The unreachable cluster's last known state stays on the page.
    await expect(view('beta').locator('[data-pod="default/api-1"]').count()).resolves.toBe(1);

    alpha.create(pods, pod('web-2', '', { metadata: { labels: { app: 'web' } } }));
    await view('alpha')
      .locator('[data-deployment="default/web"] [data-pod="default/web-2"]')
      .waitFor({ timeout: 5_000 });
    expect(await stateOf('alpha')).toBe('live');
    await expect(view('alpha').locator('[data-part="error"]').isHidden()).resolves.toBe(true);
  });
});
