import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { startDashboard, type Dashboard } from '../../src/cli/dashboard/startDashboard.js';
import { deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { launchChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js';

// The dashboard in a real (headless) browser, fed by a real (fake) API server.
const SCREENSHOT = join(process.cwd(), 'artifacts', 'dashboard.png');

let server: FakeKubeApiServer;
let dashboard: Dashboard;
let browser: HeadlessChromium;
let page: Page;
const foreignRequests: string[] = [];

function webDeployment(
  namespace: string,
  name: string,
  replicas: number,
  ready: number,
): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image: `${name}:1.0` }] },
      },
    },
    status: { replicas, readyReplicas: ready, updatedReplicas: replicas, availableReplicas: ready },
  };
}

function podOf(
  namespace: string,
  name: string,
  {
    app,
    replicaSet,
    node = 'node-1',
    waiting,
    restarts = 0,
  }: { app: string; replicaSet?: string; node?: string; waiting?: string; restarts?: number },
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { app },
      ...(replicaSet && {
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: replicaSet,
            uid: `uid-${replicaSet}`,
            controller: true,
          },
        ],
      }),
    },
    spec: { nodeName: node, containers: [{ name: app, image: `${app}:1.0` }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: app,
          image: `${app}:1.0`,
          imageID: '',
          ready: !waiting,
          restartCount: restarts,
          state: waiting ? { waiting: { reason: waiting } } : { running: {} },
        },
      ],
    },
  };
}

beforeAll(async () => {
  requireChromium(); // fails the whole file, loudly, where the browser is missing
  server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 500 });
  server.create(deployments, webDeployment('default', 'web', 2, 2));
  server.create(deployments, webDeployment('default', 'api', 1, 1));
  server.create(deployments, webDeployment('shop', 'cart', 1, 0));
  server.create(
    pods,
    podOf('default', 'web-7d4b9c-abcde', { app: 'web', replicaSet: 'web-7d4b9c' }),
  );
  server.create(
    pods,
    podOf('default', 'web-7d4b9c-fghij', { app: 'web', replicaSet: 'web-7d4b9c', node: 'node-2' }),
  );
  // No owner reference: matched to its deployment by the selector's labels.
  server.create(pods, podOf('default', 'api-by-labels', { app: 'api' }));
  server.create(
    pods,
    podOf('shop', 'cart-5f6g7h-kl2mn', {
      app: 'cart',
      replicaSet: 'cart-5f6g7h',
      waiting: 'CrashLoopBackOff',
      restarts: 7,
    }),
  );
  server.create(pods, podOf('default', 'debug-shell', { app: 'debug' }));
  dashboard = await startDashboard({
    cluster: server.kubeConfig(),
    clusterName: 'fake',
    server: server.url,
    port: 0,
  });
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on('request', (request) => {
    if (!request.url().startsWith(dashboard.url) && !request.url().startsWith('data:'))
      foreignRequests.push(request.url());
  });
  await page.goto(dashboard.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await server?.stop();
});

describe('kube-rx dashboard in Chromium', () => {
  it('shows the deployments, ready/desired, and their pods (matched by owner or labels)', async () => {
    const web = page.locator('[data-deployment="default/web"]');
    await web.waitFor({ timeout: 10_000 });
    await expect(web.locator('.replicas b').textContent()).resolves.toBe('2/2');
    await expect(
      web.locator('[data-pod]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pod'))),
    ).resolves.toEqual(['default/web-7d4b9c-abcde', 'default/web-7d4b9c-fghij']);
    const api = page.locator('[data-deployment="default/api"]');
    await expect(api.locator('[data-pod="default/api-by-labels"]').count()).resolves.toBe(1);
    const cart = page.locator('[data-deployment="shop/cart"]');
    await expect(cart.locator('.replicas b').textContent()).resolves.toBe('0/1');
    const crashing = cart.locator('[data-pod="shop/cart-5f6g7h-kl2mn"]');
    await expect(crashing.getAttribute('data-status')).resolves.toBe('CrashLoopBackOff');
    await expect(crashing.locator('td.restarts').textContent()).resolves.toBe('7');
    await expect(crashing.locator('td.node').textContent()).resolves.toBe('node-1');
    await expect(
      page.locator('.card.orphans [data-pod="default/debug-shell"]').count(),
    ).resolves.toBe(1);
    await page.locator('[data-part="connection"][data-state="live"]').waitFor({ timeout: 5_000 });
  });

  it('shows a pod created on the server, and drops a deleted one, within 2 s', async () => {
    const created = Date.now();
    server.create(
      pods,
      podOf('default', 'web-7d4b9c-new12', {
        app: 'web',
        replicaSet: 'web-7d4b9c',
        waiting: 'ContainerCreating',
      }),
    );
    await page
      .locator('[data-deployment="default/web"] [data-pod="default/web-7d4b9c-new12"]')
      .waitFor({ timeout: 2_000 });
    expect(Date.now() - created).toBeLessThan(2_000);
    await expect(
      page.locator('[data-pod="default/web-7d4b9c-new12"]').getAttribute('data-status'),
    ).resolves.toBe('ContainerCreating');

    const deleted = Date.now();
    server.delete(pods, 'default', 'web-7d4b9c-abcde');
    await page
      .locator('[data-pod="default/web-7d4b9c-abcde"]')
      .waitFor({ state: 'detached', timeout: 2_000 });
    expect(Date.now() - deleted).toBeLessThan(2_000);
  });

  it('counts events per second, serves every browser from one set of watches, and loads nothing from elsewhere', async () => {
    for (let i = 0; i < 5; i++)
      server.update(
        pods,
        podOf('default', 'debug-shell', { app: 'debug', restarts: i + 1, waiting: 'Error' }),
      );
    // Polled from here: the page's Content-Security-Policy forbids evaluating strings in it.
    const rate = page.locator('[data-part="rate"]');
    for (const end = Date.now() + 3_000; Number(await rate.textContent()) === 0;) {
      if (Date.now() > end) throw new Error('the events per second stayed at 0');
      await page.waitForTimeout(50);
    }
    const second = await browser.context.newPage();
    await second.goto(dashboard.url);
    await second.locator('[data-pod="default/web-7d4b9c-new12"]').waitFor({ timeout: 5_000 });
    await second.close();
    expect(server.openWatches).toBe(3); // deployments, pods and replicasets, whatever the number of pages
    expect(foreignRequests).toEqual([]);
    mkdirSync(join(process.cwd(), 'artifacts'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});
