import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { startDashboard, type Dashboard } from '../../src/cli/dashboard/startDashboard.js';
import { deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import { launchChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js';

// Server text in the dashboard: a pod's name and a Status message carrying markup and terminal
// escapes are shown as text, never parsed as HTML (textContent, no innerHTML).
const HOSTILE = '\u001b]0;PWNED\u0007\u001b[2K\r';
const MARKUP = '<img src=x onerror="document.body.dataset.pwned=1"><b>bold</b>';

let server: FakeKubeApiServer;
let browser: HeadlessChromium;
let dashboard: Dashboard | undefined;
let page: Page;

beforeAll(async () => {
  requireChromium();
  server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 500 });
  const web = deployment('web', '');
  server.create(deployments, {
    ...web,
    spec: { ...web.spec!, selector: { matchLabels: { app: 'web' } } },
  });
  server.create(pods, pod(`web-${MARKUP}${HOSTILE}`, '', { metadata: { labels: { app: 'web' } } }));
  browser = await launchChromium();
}, 60_000);

afterEach(async () => {
  await page?.close();
  await dashboard?.close();
  dashboard = undefined;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(): Promise<void> {
  dashboard = await startDashboard({
    cluster: server.kubeConfig(),
    clusterName: 'fake',
    server: server.url,
    port: 0,
  });
  page = await browser.context.newPage();
  await page.goto(dashboard.url);
}

describe('the dashboard with markup and control characters in server text', () => {
  it('shows a pod name as text: no element made of it, no handler run', async () => {
    await open();
    const cell = page.locator('[data-deployment="default/web"] td.pod');
    await cell.waitFor({ timeout: 10_000 });
    await expect(cell.textContent()).resolves.toBe(`web-${MARKUP}${HOSTILE}`);
    await expect(page.locator('main img, main b:text("bold")').count()).resolves.toBe(0);
    await expect(page.locator('body[data-pwned]').count()).resolves.toBe(0);
  });

  it('shows a 403 Status message as text in the banner, its control characters replaced', async () => {
    server.faults.fail(403, { message: `denied ${MARKUP}${HOSTILE}`, times: 2 });
    await open();
    const banner = page.locator('[data-part="error"]');
    await banner.waitFor({ state: 'visible', timeout: 10_000 });
    const text = (await banner.textContent()) ?? '';
    expect(text).toContain(`denied ${MARKUP}\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d`);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    await expect(
      page.locator('[data-part="error"] img, [data-part="log"] img').count(),
    ).resolves.toBe(0);
    await expect(page.locator('body[data-pwned]').count()).resolves.toBe(0);
  });
});
