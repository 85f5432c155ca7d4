import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { V1Pod } from '@kubernetes/client-node';
import { deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import { Kubectl } from '../testing/fakeKubeApiServer/kubectl.js';
import { sleep, until } from '../support/wait.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, CliProcesses, isolatedEnv, writeKubeConfig } from './support/cliProcess.js';
import { removeTempDirs } from '../support/tempDirs.js';

// Child processes start slowly on a busy machine (the Kubernetes client alone loads in 0.5 s).
jest.setTimeout(90_000);

// The real binary against a real (fake) API server: what a user types, what a user sees.
let main: string;
let server: FakeKubeApiServer;
let env: NodeJS.ProcessEnv;
const clis = new CliProcesses();

function start(...args: string[]): CliProcess {
  return clis.start(main, args, env);
}

function runningPod(
  name: string,
  namespace: string,
  app: string,
  extra: Partial<V1Pod['status']> = {},
): V1Pod {
  return pod(name, '', {
    metadata: { namespace, labels: { app }, uid: `uid-${namespace}-${name}` },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'main',
          image: 'nginx',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { running: {} },
        },
      ],
      ...extra,
    },
  });
}

beforeAll(async () => {
  main = await buildCli();
  server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 });
  env = isolatedEnv({ KUBECONFIG: writeKubeConfig(server.kubeConfig()) });
  server.create(pods, runningPod('web-1', 'default', 'web'));
  server.create(pods, runningPod('web-2', 'default', 'web'));
  server.create(pods, runningPod('db-1', 'default', 'db'));
  server.create(pods, runningPod('api-1', 'prod', 'api'));
  server.create(pods, runningPod('web-9', 'prod', 'web'));
  const web = deployment('web', '');
  server.create(deployments, {
    ...web,
    spec: { ...web.spec!, replicas: 2 },
    status: { readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
  });
}, 60_000);

afterEach(() => clis.killAll());

afterAll(async () => {
  await server?.stop();
});

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

/** Every cell of every row starts where its column's header starts. */
function expectAligned(lines: string[]): void {
  const starts = [...lines[0].matchAll(/\S+/g)].map((m) => m.index);
  for (const line of lines.slice(1)) {
    const cells = [...line.matchAll(/\S+/g)].map((m) => m.index);
    expect(cells).toEqual(starts);
  }
}

describe('kube-rx watch', () => {
  it('prints a kubectl-like table of the context namespace, then one row per change; Ctrl-C exits 0', async () => {
    const cli = start('watch', 'pods');
    await cli.waitForStdout(/^web-2/);
    expect(cli.stdoutLines.slice(0, 4)).toEqual([
      'NAME    READY   STATUS    RESTARTS   AGE',
      expect.stringMatching(/^db-1 {4}1\/1 {5}Running {3}0 {10}\d+s$/),
      expect.stringMatching(/^web-1 {3}1\/1 {5}Running {3}0 {10}\d+s$/),
      expect.stringMatching(/^web-2 {3}1\/1 {5}Running {3}0 {10}\d+s$/),
    ]);
    server.create(pods, pod('web-3', '', { status: { phase: 'Pending' } }));
    await cli.waitForStdout(/^web-3\s+0\/1\s+Pending\s+0\s+\d+s$/);
    server.delete(pods, 'default', 'db-1');
    await cli.waitForStdout(/^db-1\s+1\/1\s+Deleted\s+0/);
    cli.interrupt();
    const result = await cli.exited;
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('api-1'); // another namespace
    server.delete(pods, 'default', 'web-3');
  });

  it('prints JSON lines {type, object} with -o json --output-watch-events, every namespace with -A', async () => {
    const cli = start('watch', 'pods', '-A', '-o', 'json', '--output-watch-events');
    await cli.waitForStdout(/"web-9"/);
    const initial = cli.stdoutLines.map(
      (line) => JSON.parse(line) as { type: string; object: V1Pod },
    );
    expect(initial.every((e) => e.type === 'ADDED')).toBe(true);
    expect(
      initial.map((e) => `${e.object.metadata?.namespace}/${e.object.metadata?.name}`).sort(),
    ).toEqual(server.objects(pods).map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
    server.update(pods, runningPod('api-1', 'prod', 'api', { phase: 'Failed' }));
    const line = await cli.waitForStdout(/"MODIFIED"/);
    expect(JSON.parse(line)).toMatchObject({
      type: 'MODIFIED',
      object: { metadata: { name: 'api-1' }, status: { phase: 'Failed' } },
    });
    cli.interrupt();
    expect((await cli.exited).code).toBe(0);
  });

  it('filters with -l, --field-selector and -n, and prints names with -o name', async () => {
    const cli = start(
      'watch',
      'po',
      '-n',
      'prod',
      '-l',
      'app=web',
      '--field-selector',
      'metadata.name!=web-11',
      '-o',
      'name',
    );
    await cli.waitForStdout(/^pod\/web-9$/);
    server.create(pods, runningPod('api-2', 'prod', 'api'));
    server.create(pods, runningPod('web-11', 'prod', 'web'));
    server.create(pods, runningPod('web-10', 'prod', 'web'));
    await cli.waitForStdout(/^pod\/web-10$/);
    cli.interrupt();
    const result = await cli.exited;
    expect(result.stdout.split('\n')).toEqual(['pod/web-9', 'pod/web-10']);
    expect(result.code).toBe(0);
  });

  it('adds a NAMESPACE column with -A, and knows deployment columns by their short name', async () => {
    const podsCli = start('watch', 'pods', '-A');
    const deployCli = start('watch', 'deploy', '-A');
    await podsCli.waitForStdout(/^prod\s+web-9\s/);
    expect(podsCli.stdoutLines[0]).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(podsCli.stdoutLines[1]).toMatch(/^default\s+web-1\s+1\/1\s+Running\s+0\s+\d+s$/);
    expectAligned(podsCli.stdoutLines);
    await deployCli.waitForStdout(/^default\s+web\s+2\/2\s+2\s+2\s+\d+s$/);
    expect(deployCli.stdoutLines[0]).toMatch(
      /^NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/,
    );
    expectAligned(deployCli.stdoutLines);
  });

  it("watches the namespace of the kubeconfig's context when -n is not given", async () => {
    const prodEnv = isolatedEnv({
      KUBECONFIG: writeKubeConfig(server.kubeConfig({ namespace: 'prod' })),
    });
    const cli = CliProcess.start(main, ['watch', 'pods'], prodEnv);
    clis.keep(cli);
    // The initial listing is printed at once, sorted: web-9 is its last row.
    await cli.waitForStdout(/^web-9\s/);
    const names = cli.stdoutLines.slice(1).map((line) => line.split(' ')[0]);
    expect(names).toEqual(
      server
        .objects(pods, 'prod')
        .map((p) => p.metadata?.name)
        .sort(),
    );
    expect(names).toContain('api-1');
  });

  it('watches the simulated cluster with --demo, even with a working kubeconfig', async () => {
    const cli = start('watch', 'deploy', '-o', 'name', '--demo');
    await cli.waitForStderr(/--demo given: using a SIMULATED demo cluster/);
    await cli.waitForStdout(/^deployment\.apps\/frontend$/);
    expect(cli.stdoutLines).not.toContain('deployment.apps/web'); // the kubeconfig's cluster
  });

  it("prints the demo cluster's kubeconfig: kubectl lists the pods the watch prints; removed on Ctrl-C", async () => {
    const cli = start('watch', 'pods', '-o', 'name', '--demo');
    const path = (await cli.waitForStderr(/^KUBECONFIG=\S+$/)).slice('KUBECONFIG='.length);
    const kubectl = await Kubectl.withKubeConfig(path);
    try {
      const names = (await kubectl.ok('get', 'pods', '-n', 'shop', '-o', 'name'))
        .trim()
        .split('\n');
      expect(names.length).toBeGreaterThanOrEqual(3);
      // Every pod kubectl lists is on the server the watch follows: each gets printed.
      await until(
        () => names.every((name) => cli.stdoutLines.includes(name)),
        () => `${names.join(' ')} among ${cli.stdoutLines.join(' ')}`,
      );
    } finally {
      await kubectl.cleanup();
    }
    cli.interrupt();
    expect((await cli.exited).code).toBe(0);
    expect(existsSync(path)).toBe(false);
  });

  it('resumes after the API server restarts: the new change arrives once, nothing is repeated', async () => {
    // Earlier specs' processes are gone (afterEach), so the one watch left open will be this one.
    await until(() => server.openWatches === 0, 'earlier watches to close');
    const cli = start('watch', 'pods', '-A', '-o', 'json', '--output-watch-events');
    await cli.waitForStdout(/"web-9"/);
    const initialLines = cli.stdoutLines.length;
    // Restart once the watch (after the list) is streaming, so that it is cut mid-way.
    await until(() => server.openWatches === 1, 'the watch after the list');
    await server.restart();
    await cli.waitForStderr(/pods: (connection lost|reconnecting)/);
    server.create(pods, runningPod('late-1', 'default', 'late'));
    await cli.waitForStdout(/"late-1"/, 10_000);
    await cli.waitForStderr(/pods: reconnected/);
    // A little longer, so that any duplicate would have come.
    await sleep(500);
    cli.interrupt();
    expect((await cli.exited).code).toBe(0);
    const events = cli.stdoutLines.map(
      (line) => JSON.parse(line) as { type: string; object: V1Pod },
    );
    expect(events.slice(initialLines).map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual([
      'ADDED late-1',
    ]);
    const versions = events.map(
      (e) => `${e.object.metadata?.name}@${e.object.metadata?.resourceVersion}`,
    );
    expect(new Set(versions).size).toBe(versions.length);
  });
});
