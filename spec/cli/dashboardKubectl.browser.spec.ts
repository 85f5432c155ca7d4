import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Page } from 'playwright-core';
import { launchChromium, requireChromium, type HeadlessChromium } from '../support/chromium.js';
import { Kubectl } from '../testing/fakeKubeApiServer/kubectl.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, isolatedEnv } from './support/cliProcess.js';
import { removeTempDirs } from '../support/tempDirs.js';

// What a new user tries: `kube-rx dashboard --demo` in one terminal, and in another, with the
// KUBECONFIG line it printed, `kubectl delete pod ...`: the pod leaves the page in Chromium;
// `kubectl scale deployment frontend --replicas=5`: five pods on the page, and they stay five
// (the demo's deployment controller converges on what the user set, as on a real cluster).
// Only flags that both kubectl 1.20 (Debian, CI) and 1.32 know.

// A child process, kubectl (each run reads discovery) and a browser on a busy machine.
jest.setTimeout(90_000);

let cli: CliProcess;
let kubectl: Kubectl;
let browser: HeadlessChromium;
let page: Page;

beforeAll(async () => {
  requireChromium(); // fails the whole file, loudly, where the browser is missing
  const main = await buildCli();
  cli = CliProcess.start(main, ['dashboard', '--demo', '--port', '0'], isolatedEnv());
  const url = await cli.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  const kubeconfig = (await cli.waitForStderr(/^KUBECONFIG=\S+$/)).slice('KUBECONFIG='.length);
  kubectl = await Kubectl.withKubeConfig(kubeconfig);
  browser = await launchChromium();
  page = await browser.context.newPage();
  await page.goto(url);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await kubectl?.cleanup();
  if (cli) {
    cli.interrupt();
    await cli.exited;
  }
});

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

/** The `shop/...` pods the page shows now. */
function podsOnPage(): Promise<string[]> {
  return page
    .locator('[data-pod^="shop/frontend-"]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pod') ?? ''));
}

describe('kube-rx dashboard --demo in Chromium, changed with kubectl', () => {
  it('drops the row of a pod that kubectl deletes through the printed KUBECONFIG', async () => {
    await page.locator('[data-pod^="shop/frontend-"]').first().waitFor({ timeout: 30_000 });
    // The simulation kills and replaces pods on its own: a pod it removed just before kubectl
    // got to it is NotFound (exit 1). Then take another; the one kubectl deleted is the one
    // checked.
    let deleted: string | undefined;
    const refusals: string[] = [];
    for (let attempt = 0; attempt < 5 && deleted === undefined; attempt++) {
      const [candidate] = await podsOnPage();
      if (candidate === undefined) continue;
      const name = candidate.slice('shop/'.length);
      const result = await kubectl.run('delete', 'pod', name, '-n', 'shop');
      if (result.code === 0) {
        expect(result.stdout).toContain(`pod "${name}" deleted`);
        deleted = candidate;
      } else refusals.push(result.stderr);
    }
    if (deleted === undefined) throw new Error(`kubectl deleted no pod: ${refusals.join('\n')}`);

    await page.locator(`[data-pod="${deleted}"]`).waitFor({ state: 'detached', timeout: 10_000 });
    // Gone from the server too, not brought back by the simulation; the deployment replaces it
    // under another name, as a ReplicaSet would.
    const after = await kubectl.run('get', 'pod', deleted.slice('shop/'.length), '-n', 'shop');
    expect(after.code).not.toBe(0);
    expect(after.stderr).toMatch(/NotFound|not found/);
    await expect(podsOnPage()).resolves.not.toContain(deleted);
    await page.locator('[data-pod^="shop/frontend-"]').first().waitFor({ timeout: 10_000 });
  });

  it('shows five frontend pods after kubectl scale --replicas=5, and the simulation keeps them', async () => {
    const card = page.locator('[data-deployment="shop/frontend"]');
    await card.waitFor({ timeout: 30_000 });
    const scaled = await kubectl.ok(
      'scale',
      'deployment',
      'frontend',
      '--replicas=5',
      '-n',
      'shop',
    );
    expect(scaled).toContain('deployment.apps/frontend scaled');

    // The controller creates two pods; they start, and the card counts five of five ready.
    await page.waitForFunction(
      () =>
        document.querySelectorAll('[data-pod^="shop/frontend-"]:not([data-status="Terminating"])')
          .length === 5,
      undefined,
      { timeout: 30_000 },
    );
    await page.waitForFunction(
      () =>
        document.querySelector('[data-deployment="shop/frontend"] .replicas b')?.textContent ===
        '5/5',
      undefined,
      { timeout: 30_000 },
    );

    // Twenty steps of the simulation later (it scales deployments at random, and used to put
    // this one back), the user's five stand, on the server and on the page.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const replicas = await kubectl.ok(
      'get',
      'deployment',
      'frontend',
      '-n',
      'shop',
      '-o',
      'jsonpath={.spec.replicas}',
    );
    expect(replicas).toBe('5');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('[data-pod^="shop/frontend-"]:not([data-status="Terminating"])')
          .length === 5,
      undefined,
      { timeout: 15_000 },
    );
  });
});
