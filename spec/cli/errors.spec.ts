import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { resolveClusterTarget } from '../../src/cli/clusterTarget.js';
import { lastValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, isolatedEnv, writeKubeConfig, type CliResult } from './support/cliProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDirs.js';

// Child processes start slowly on a busy machine (the Kubernetes client alone loads in 0.5 s).
jest.setTimeout(60_000);

// Every failure a user can run into: one line on stderr that says what and why, exit code 1.
let main: string;
let server: FakeKubeApiServer;
let env: NodeJS.ProcessEnv;

const run = (args: string[], withEnv: NodeJS.ProcessEnv = env): Promise<CliResult> =>
  CliProcess.run(main, args, withEnv);

function expectFailure(result: CliResult, message: RegExp): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^kube-rx: /);
  expect(lines[0]).toMatch(message);
}

/** A kubeconfig file that does not parse. */
function garbageKubeConfig(): string {
  const file = join(tempDir('bad'), 'config');
  writeFileSync(file, 'clusters: [unclosed\n');
  return file;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  main = await buildCli();
  server = await FakeKubeApiServer.start();
  server.create(pods, pod('web-1', ''));
  env = isolatedEnv({ KUBECONFIG: writeKubeConfig(server.kubeConfig()) });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

describe('kube-rx usage', () => {
  it('prints help and the version, exit 0', async () => {
    const [help, watchHelp, dashboardHelp, version] = await Promise.all([
      run(['--help']),
      run(['watch', '--help']),
      run(['dashboard', '-h']),
      run(['--version']),
    ]);
    expect(help).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('kube-rx watch <resource>'),
    });
    expect(watchHelp).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('--field-selector'),
    });
    expect(dashboardHelp).toMatchObject({ code: 0, stdout: expect.stringContaining('--port') });
    expect(version).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^kube-rx \d+\.\d+\.\d+/),
    });
  });

  it('rejects bad flags and arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['watch', 'pods', '--bogus'], /unknown flag --bogus \(see: kube-rx watch --help\)/],
      [['watch', 'pods', '-n'], /-n, --namespace.*argument missing/],
      [
        ['watch', 'pods', '-o', 'xml'],
        /bad --output "xml": expected table, wide, json, yaml, name/,
      ],
      [['watch', 'pods', '-A', '-n', 'x'], /-n\/--namespace or -A\/--all-namespaces, not both/],
      [['watch'], /missing resource/],
      [['dashboard', '--port', 'http'], /bad --port "http"/],
      [['dashboard', '--verbose'], /unknown flag --verbose \(see: kube-rx dashboard --help\)/],
      [['frobnicate'], /unknown command "frobnicate"/],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((result, i) => expectFailure(result, cases[i][1]));
  });
});

describe('kube-rx watch failures', () => {
  it('an unknown name: says the server has no such resource type, and which names are near', async () => {
    const [unknown, typo] = await Promise.all([
      run(['watch', 'widgets']),
      run(['watch', 'deploymnets']),
    ]);
    expectFailure(
      unknown,
      /unknown resource "widgets": the server doesn't have a resource type "widgets"$/,
    );
    expectFailure(typo, /\(did you mean deployments\.apps\?\)$/);
  });

  it.each([
    {
      what: 'a resource the server does not have (404)',
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
      args: ['watch', 'v1/secrets'],
      expected: /unknown resource "v1\/secrets": the server has no such resource \(404 NotFound/,
    },
    {
      what: 'missing permissions (403)',
      code: 403,
      reason: 'Forbidden',
      message: 'pods is forbidden: User "dev" cannot list resource "pods"',
      args: ['watch', 'pods'],
      expected: /forbidden: you may not list and watch pods: 403 Forbidden: pods is forbidden/,
    },
  ])('$what', async ({ code, reason, message, args, expected }) => {
    server.faults.fail(code, { reason, message, match: 'list' });
    expectFailure(await run(args), expected);
  });

  it('an unreachable cluster', async () => {
    const port = await closedPort();
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'gone', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'gone', token: 't' }],
      contexts: [{ name: 'gone', cluster: 'gone', user: 'gone' }],
      currentContext: 'gone',
    });
    const result = await run(['watch', 'pods', '--kubeconfig', writeKubeConfig(kc)]);
    expectFailure(
      result,
      new RegExp(`cannot reach the cluster at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
    );
  });

  it('a bad kubeconfig, context or token', async () => {
    const [missing, unreadable, noContext, wrongToken] = await Promise.all([
      run(['watch', 'pods', '--kubeconfig', '/nonexistent/config']),
      run(['watch', 'pods', '--kubeconfig', garbageKubeConfig()]),
      run(['watch', 'pods', '--context', 'nope']),
      run([
        'watch',
        'pods',
        '--kubeconfig',
        writeKubeConfig(server.kubeConfig({ token: 'stale' })),
      ]),
    ]);
    expectFailure(missing, /bad kubeconfig: \/nonexistent\/config does not exist/);
    expectFailure(unreadable, /bad kubeconfig: .*config: /);
    expectFailure(noContext, /bad kubeconfig: .* has no context named "nope"/);
    expectFailure(
      wrongToken,
      /unauthorized: the cluster at http:\/\/127\.0\.0\.1:\d+ refused the kubeconfig's credentials: 401/,
    );
  });

  it('with no kubeconfig at all, watches the simulated demo cluster and says so', async () => {
    const cli = CliProcess.start(main, ['watch', 'deploy', '-o', 'name'], isolatedEnv());
    try {
      await cli.waitForStderr(/using a SIMULATED demo cluster/);
      await cli.waitForStdout(/^deployment\.apps\/frontend$/);
      cli.interrupt();
      expect((await cli.exited).code).toBe(0);
    } finally {
      cli.kill();
    }
  });
});

describe('choosing the cluster', () => {
  it('uses the demo cluster, and says why, when the kubeconfig found by default cannot be used', async () => {
    // KUBECONFIG is not a flag: a broken default falls back, where --kubeconfig fails (above).
    const warnings: string[] = [];
    const target = await resolveClusterTarget({
      env: isolatedEnv({ KUBECONFIG: garbageKubeConfig() }),
      warn: (line) => warnings.push(line),
    });
    try {
      expect(target).toMatchObject({ contextName: 'kube-rx-demo', demo: expect.anything() });
      expect(warnings).toEqual([
        expect.stringMatching(
          /^kube-rx: the kubeconfig could not be used \(.*config: .*\): using a SIMULATED demo cluster/,
        ),
        // Then where its kubeconfig is, for kubectl.
        `KUBECONFIG=${target.demo!.kubeConfigPath}`,
        expect.stringContaining(`try: KUBECONFIG=${target.demo!.kubeConfigPath} kubectl get pods`),
      ]);
    } finally {
      await target.close();
    }
  });

  it('merges several KUBECONFIG files as kubectl does: missing ones skipped, the first current-context and the first of each name win', async () => {
    const file = (context: string, namespace: string) =>
      writeKubeConfig(server.kubeConfig({ context, namespace }));
    const prod = file('prod', 'prod');
    const dev = file('dev', 'dev');
    const shadow = file('prod', 'shadow'); // a cluster, user and context named 'prod' again
    const chosen = async (...files: string[]) => {
      const target = await resolveClusterTarget({
        env: isolatedEnv({ KUBECONFIG: files.join(delimiter) }),
        warn: () => {},
      });
      await target.close();
      return `${target.contextName} ${target.namespace}`;
    };
    await expect(chosen(prod, dev)).resolves.toBe('prod prod');
    await expect(chosen(prod, shadow)).resolves.toBe('prod prod');
    await expect(chosen('/nonexistent/config', dev)).resolves.toBe('dev dev');
  });

  it("--context connects with that context's user, in its namespace", async () => {
    const files = [
      writeKubeConfig(server.kubeConfig({ context: 'stale', token: 'stale' })), // current-context
      writeKubeConfig(server.kubeConfig({ context: 'dev', namespace: 'dev' })),
    ];
    const target = await resolveClusterTarget({
      context: 'dev',
      env: isolatedEnv({ KUBECONFIG: files.join(delimiter) }),
      warn: () => {},
    });
    expect(`${target.contextName} ${target.namespace}`).toBe('dev dev');
    const { items } = await lastValueFrom(fromList(target.cluster, pods));
    expect(items.map((p) => p.metadata?.name)).toEqual(['web-1']);
  });
});
