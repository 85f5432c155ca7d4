import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type Server } from 'node:net';
import { isAbsolute } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { DashboardFeed } from '../../src/cli/dashboard/DashboardFeed.js';
import { deployments } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment } from '../../src/testing/marbles/builders.js';
import { Kubectl } from '../testing/fakeKubeApiServer/kubectl.js';
import { sleep } from '../support/wait.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, isolatedEnv, writeKubeConfig } from './support/cliProcess.js';
import { removeTempDirs } from '../support/tempDirs.js';

// Child processes start slowly on a busy machine (the Kubernetes client alone loads in 0.5 s).
jest.setTimeout(40_000);

// `kube-rx dashboard` as `npm start` runs it: the binary, with no kubeconfig at all.
let main: string;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  main = await buildCli();
}, 60_000);

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

/** The data of a `snapshot` message: what a page starts from. */
type Snapshot = ReturnType<DashboardFeed['snapshot']>;

/** Reads `/events` until `count` `snapshot` messages came (one per cluster), and returns them. */
async function firstSnapshots(
  url: string,
  count: number,
): Promise<(Snapshot & { view: number })[]> {
  const controller = new AbortController();
  const response = await fetch(new URL('events', url), { signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before ${count} snapshots: ${text}`);
      text += decoder.decode(value, { stream: true });
      const found = [...text.matchAll(/event: snapshot\ndata: (.*)\n\n/g)];
      if (found.length >= count) return found.map((match) => JSON.parse(match[1]!));
    }
  } finally {
    controller.abort();
  }
}

/** Reads `/events` until the first `snapshot` message, and returns its data. */
async function firstSnapshot(url: string): Promise<Snapshot> {
  const controller = new AbortController();
  const response = await fetch(new URL('events', url), { signal: controller.signal });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before a snapshot: ${text}`);
      text += decoder.decode(value, { stream: true });
      const match = /event: snapshot\ndata: (.*)\n\n/.exec(text);
      if (match) return JSON.parse(match[1]);
    }
  } finally {
    controller.abort();
  }
}

/**
 * The snapshot of a newly opened page once `ready` holds (the watches may still be listing when
 * the URL is printed), or the last one after about five seconds.
 */
async function snapshotWhen(url: string, ready: (s: Snapshot) => boolean): Promise<Snapshot> {
  for (let tries = 1; ; tries++) {
    const snapshot = await firstSnapshot(url);
    if (ready(snapshot) || tries === 50) return snapshot;
    await sleep(100);
  }
}

describe('kube-rx dashboard', () => {
  it('serves the page and its event stream on the simulated cluster, prints the URL, and stops on Ctrl-C', async () => {
    const cli = CliProcess.start(main, ['dashboard', '--port', '0'], isolatedEnv());
    cleanups.push(() => cli.kill());
    const url = await cli.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(cli.stderrLines.join('\n')).toMatch(/using a SIMULATED demo cluster/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('<title>kube-rx dashboard</title>');
    const snapshot = await snapshotWhen(url, (s) => s.rows.some((r) => r.id === 'shop/frontend'));
    expect(snapshot.status.demo).toBe(true);
    expect(snapshot.rows).toContainEqual(
      expect.objectContaining({ kind: 'deployment', id: 'shop/frontend' }),
    );
    expect(snapshot.rows.filter((r) => r.kind === 'pod').length).toBeGreaterThan(5);
    expect((await fetch(new URL('nothing-here', url))).status).toBe(404);
    cli.interrupt();
    expect((await cli.exited).code).toBe(0);
  });

  it("prints the demo cluster's kubeconfig, through which kubectl lists the pods the page shows; removed on Ctrl-C", async () => {
    // No kubeconfig at all: the demo, as `npm start` shows it.
    const cli = CliProcess.start(main, ['dashboard', '--port', '0'], isolatedEnv());
    cleanups.push(() => cli.kill());
    const url = await cli.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const path = (await cli.waitForStderr(/^KUBECONFIG=\S+$/)).slice('KUBECONFIG='.length);
    expect(isAbsolute(path)).toBe(true);
    expect(cli.stderrLines.join('\n')).toContain(
      `try: KUBECONFIG=${path} kubectl get pods -n shop`,
    );
    const kubectl = await Kubectl.withKubeConfig(path);
    cleanups.push(() => kubectl.cleanup());
    const names = (await kubectl.ok('get', 'pods', '-n', 'shop', '-o', 'name'))
      .trim()
      .split('\n')
      .map((line) => line.replace(/^pod\//, ''));
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of names) expect(name).toMatch(/^(frontend|cart|checkout)-/);
    // The same pods are on the page (the simulation may have replaced some of them meanwhile).
    const onPage = (s: Snapshot) =>
      s.rows.filter((r) => r.kind === 'pod').map((r) => r.id.replace(/^shop\//, ''));
    const snapshot = await snapshotWhen(url, (s) => names.some((n) => onPage(s).includes(n)));
    expect(names.filter((n) => onPage(snapshot).includes(n))).not.toEqual([]);
    cli.interrupt();
    expect((await cli.exited).code).toBe(0);
    expect(existsSync(path)).toBe(false);
  });

  it('shows one namespace with -n', async () => {
    const cli = CliProcess.start(
      main,
      ['dashboard', '--demo', '--port', '0', '-n', 'monitoring'],
      isolatedEnv(),
    );
    cleanups.push(() => cli.kill());
    const url = await cli.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const snapshot = await snapshotWhen(url, (s) => s.status.synced);
    expect(snapshot.status).toMatchObject({ synced: true, namespace: 'monitoring' });
    expect(snapshot.rows).toContainEqual(
      expect.objectContaining({ kind: 'deployment', id: 'monitoring/grafana' }),
    );
    expect(snapshot.rows.filter((r) => !r.id.startsWith('monitoring/'))).toEqual([]);
  });

  it('refuses a request that names another host (DNS rebinding)', async () => {
    const cli = CliProcess.start(main, ['dashboard', '--demo', '--port', '0'], isolatedEnv());
    cleanups.push(() => cli.kill());
    const url = new URL(await cli.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\/$/));
    const statusFor = (host: string) =>
      new Promise<number | undefined>((resolve, reject) => {
        const req = get(
          { host: '127.0.0.1', port: url.port, path: '/events', headers: { host } },
          (res) => {
            resolve(res.statusCode);
            res.destroy();
          },
        );
        req.on('error', reject);
      });
    await expect(statusFor(`attacker.example:${url.port}`)).resolves.toBe(403);
    await expect(statusFor(`localhost:${url.port}`)).resolves.toBe(200);
  });

  it('says so when the port is taken', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)));
    const { port } = taken.address() as { port: number };
    const result = await CliProcess.run(
      main,
      ['dashboard', '--demo', '--port', String(port)],
      isolatedEnv(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`kube-rx: port ${port} on 127\\.0\\.0\\.1 is in use: pick another with --port`),
    );
  });

  it('shows several clusters on one page with --context given several times', async () => {
    const servers = [await FakeKubeApiServer.start(), await FakeKubeApiServer.start()];
    cleanups.push(() => Promise.all(servers.map((server) => server.stop())));
    servers[0]!.create(deployments, deployment('web', ''));
    servers[1]!.create(deployments, deployment('api', ''));
    const [alpha, beta] = [
      servers[0]!.kubeConfig({ context: 'alpha' }),
      servers[1]!.kubeConfig({ context: 'beta' }),
    ];
    const both = new KubeConfig();
    both.loadFromOptions({
      clusters: [...alpha.clusters, ...beta.clusters],
      users: [...alpha.users, ...beta.users],
      contexts: [...alpha.contexts, ...beta.contexts],
      currentContext: 'alpha',
    });
    const kubeconfig = writeKubeConfig(both);
    const args = ['dashboard', '--port', '0', '--kubeconfig', kubeconfig];
    const cli = CliProcess.start(
      main,
      [...args, '--context', 'alpha', '--context', 'beta'],
      isolatedEnv(),
    );
    cleanups.push(() => cli.kill());
    const url = await cli.waitForStdout(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await (await fetch(url)).text()).toMatch(
      /data-view="0" data-cluster="alpha"[^]*data-view="1" data-cluster="beta"/,
    );
    let views: (Snapshot & { view: number })[] = [];
    for (let tries = 0; tries < 50; tries++) {
      views = await firstSnapshots(url, 2);
      if (views.every((v) => v.status.synced)) break;
      await sleep(100);
    }
    expect(views.map((v) => [v.view, v.status.cluster, v.rows.map((r) => r.id)])).toEqual([
      [0, 'alpha', ['default/web']],
      [1, 'beta', ['default/api']],
    ]);
    cli.interrupt();
    expect((await cli.exited).code).toBe(0);

    const missing = await CliProcess.run(
      main,
      [...args, '--context', 'alpha', '--context', 'gamma'],
      isolatedEnv(),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no context named "gamma"/);
  });
});
