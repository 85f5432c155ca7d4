import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { runCli } from '../../src/cli/runCli.js';
import { deployments, events, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import { until } from '../support/wait.js';
import { isolatedEnv, writeKubeConfig } from './support/cliProcess.js';
import { removeTempDirs } from '../support/tempDirs.js';

// Under load, a run reads discovery, lists and prints in a few seconds.
jest.setTimeout(60_000);

// `kube-rx watch` against FakeKubeApiServer's discovery: the built-in kinds and a CRD.
let server: FakeKubeApiServer;
let env: NodeJS.ProcessEnv;

/** How one in-process run ended: its output and exit code. */
interface Run {
  out: string[];
  warnings: string[];
  code: number;
}

/**
 * Runs `kube-rx` in this process until its first line of output (then as if Ctrl-C) or its end.
 */
async function run(...args: string[]): Promise<Run> {
  const controller = new AbortController();
  const out: string[] = [];
  const warnings: string[] = [];
  let code: number | undefined;
  const exit = runCli(args, {
    out: (text) => out.push(text),
    warn: (line) => warnings.push(line),
    env,
    signal: controller.signal,
    version: 'spec',
  });
  void exit.then((c) => (code = c));
  try {
    await until(
      () => out.length > 0 || code !== undefined,
      () => `output of kube-rx ${args.join(' ')}: ${warnings.join('; ')}`,
      40_000,
    );
  } finally {
    controller.abort();
  }
  return { out: out.join('').split('\n').filter(Boolean), warnings, code: await exit };
}

beforeAll(async () => {
  server = await FakeKubeApiServer.start();
  env = isolatedEnv({ KUBECONFIG: writeKubeConfig(server.kubeConfig()) });
  server.create(pods, pod('web-1', ''));
  server.create(deployments, deployment('web', ''));
  server.create(events, {
    metadata: { name: 'web-1.started', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web-1' },
    reason: 'Started',
  });
  const crontabs = server.defineResource({
    group: 'stable.example.com',
    version: 'v1',
    plural: 'crontabs',
    kind: 'CronTab',
    shortNames: ['ct'],
    printerColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
  });
  server.create(crontabs, {
    apiVersion: 'stable.example.com/v1',
    kind: 'CronTab',
    metadata: { name: 'nightly', namespace: 'default' },
    spec: { cronSpec: '0 3 * * *' },
  } as never);
}, 60_000);

afterAll(() => server?.stop());

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

describe("kube-rx watch prints FakeKubeApiServer's Table columns", () => {
  /** Every line of a table run once its `lines` lines are there. */
  async function table(lines: number, ...args: string[]): Promise<string[]> {
    const controller = new AbortController();
    let text = '';
    const exit = runCli(args, {
      out: (t) => (text += t),
      warn: () => {},
      env,
      signal: controller.signal,
      version: 'spec',
    });
    try {
      await until(
        () => text.split('\n').length > lines,
        () => `${lines} lines: ${text}`,
        40_000,
      );
    } finally {
      controller.abort();
    }
    expect(await exit).toBe(0);
    return text.trimEnd().split('\n');
  }

  it("prints a CRD's printer columns, then Age", async () => {
    const lines = await table(2, 'watch', 'ct');
    expect(lines[0]).toMatch(/^NAME {6}SPEC {8}AGE$/);
    expect(lines[1]).toMatch(/^nightly {3}0 3 \* \* \* {3}\S+$/);
  });

  it("prints the server's pod columns", async () => {
    const lines = await table(2, 'watch', 'po');
    expect(lines[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(lines[1]).toMatch(/^web-1\s/);
    const accepts = server.requests
      .filter((r) => r.path.endsWith('/pods'))
      .map((r) => r.headers.accept);
    expect(accepts).toContain('application/json;as=Table;v=v1;g=meta.k8s.io,application/json');
  });
});

describe('kube-rx watch against FakeKubeApiServer discovery', () => {
  it.each([
    [['pods', 'pod', 'po', 'Pod', 'v1/pods'], 'pod/web-1'],
    [
      [
        'deploy',
        'deployments.apps',
        'Deployment.apps',
        'deployments.v1.apps',
        'apps/v1/deployments',
      ],
      'deployment.apps/web',
    ],
    [
      ['crontabs', 'ct', 'CronTab', 'crontabs.stable.example.com'],
      'crontab.stable.example.com/nightly',
    ],
  ])('%j -> %s', async (forms, name) => {
    const runs = await Promise.all(forms.map((form) => run('watch', form, '-o', 'name')));
    expect(runs.map((r) => [r.code, r.out[0]])).toEqual(forms.map(() => [0, name]));
  });

  it('reads each discovery document once per run', async () => {
    server.requests.length = 0;
    expect((await run('watch', 'ct', '-o', 'name')).out).toEqual([
      'crontab.stable.example.com/nightly',
    ]);
    const discovery = server.requests
      .map((r) => r.path)
      .filter((p) => /^\/(api|api\/v1|apis|apis\/[^/]+\/[^/]+)$/.test(p));
    expect(discovery).toContain('/apis/stable.example.com/v1');
    expect(new Set(discovery).size).toBe(discovery.length);
  });

  it('answers an unknown or ambiguous-looking name in one line', async () => {
    const typo = await run('watch', 'cromtabs');
    expect(typo.code).toBe(1);
    expect(typo.warnings).toEqual([
      'kube-rx: unknown resource "cromtabs": the server doesn\'t have a resource type "cromtabs" (did you mean crontabs.stable.example.com?)',
    ]);
    // events is served by v1 and events.k8s.io: the core group wins, as with kubectl.
    expect((await run('watch', 'ev', '-o', 'name')).out).toEqual(['event/web-1.started']);
  });

  it('still watches the built-in names when discovery fails (403), and says why a CRD cannot be named', async () => {
    // Discovery's /api, the first request of a run: only it (a watch of the previous run may
    // still arrive, as it was sent before that run was stopped).
    server.faults.fail(403, {
      reason: 'Forbidden',
      message: 'discovery is forbidden',
      path: '/api',
    });
    expect(await run('watch', 'po', '-o', 'name')).toMatchObject({
      code: 0,
      out: ['pod/web-1'],
      warnings: [],
    });
    server.faults.fail(403, {
      reason: 'Forbidden',
      message: 'discovery is forbidden',
      path: '/api',
    });
    const crontab = await run('watch', 'ct');
    expect(crontab.code).toBe(1);
    expect(crontab.warnings).toEqual([
      expect.stringMatching(
        /^kube-rx: unknown resource "ct": the server's discovery could not be read \(403 Forbidden: discovery is forbidden .*\), so only the built-in names/,
      ),
    ]);
  });
});
