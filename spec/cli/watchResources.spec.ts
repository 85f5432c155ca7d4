import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  jest,
} from '@jest/globals';
import { loadAll } from 'js-yaml';
import { runCli } from '../../src/cli/runCli.js';
import { until } from '../support/wait.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, CliProcesses, isolatedEnv, writeKubeConfig } from './support/cliProcess.js';
import { removeTempDirs } from '../support/tempDirs.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { deployments, pods } from '../../src/objects/resources.js';
import type { ResourceRef } from '../../src/types.js';
import { withoutTables } from './support/withoutTables.js';

// Child processes start slowly on a busy machine (the Kubernetes client alone loads in 0.5 s).
jest.setTimeout(60_000);

// `kube-rx watch` as a kubectl user types it, against the test kit: discovery and Tables as
// kube-apiserver serves them, custom resources with printer columns.
let main: string;
let api: FakeKubeApiServer;
let crontabs: ResourceRef;
let env: NodeJS.ProcessEnv;
const clis = new CliProcesses();

function start(...args: string[]): CliProcess {
  return clis.start(main, args, env);
}

/** Metadata of an object created `minutes` ago, so that its AGE cell is known. */
const meta = (name: string, namespace: string, minutes: number) => ({
  name,
  namespace,
  creationTimestamp: new Date(Date.now() - minutes * 60_000).toISOString() as unknown as Date,
});

const cronTab = (name: string, spec: object) => ({
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: meta(name, 'default', 15),
  spec,
});

beforeAll(async () => {
  main = await buildCli();
  api = await FakeKubeApiServer.start();
  env = isolatedEnv({ KUBECONFIG: writeKubeConfig(api.kubeConfig()) });
  crontabs = api.defineResource({
    group: 'stable.example.com',
    version: 'v1',
    plural: 'crontabs',
    kind: 'CronTab',
    shortNames: ['ct'],
    printerColumns: [
      { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
    ],
  });
  // Two groups serve `widgets`: the bare name is ambiguous.
  const widget = { plural: 'widgets', kind: 'Widget', version: 'v1' };
  api.defineResource({ ...widget, group: 'stable.example.com', namespaced: false });
  api.defineResource({ ...widget, group: 'toys.example.com', shortNames: ['wd'] });
  api.create(pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta('web-1', 'default', 77),
    spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] },
    status: {
      phase: 'Running',
      podIP: '10.1.2.3',
      containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'nginx', imageID: '' }],
    },
  });
  api.create(deployments, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('web', 'default', 3 * 24 * 60),
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
    },
    status: { replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
  });
  api.create(crontabs, cronTab('nightly', { cronSpec: '0 3 * * *', replicas: 2 }));
}, 120_000);

beforeEach(() => api.faults.reset());

afterEach(() => clis.killAll());

afterAll(() => api?.stop());

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

/** `/api`, `/api/v1`, `/apis` and `/apis/{group}/{version}`: discovery, not a resource. */
const isDiscovery = (path: string) => /^\/(api|api\/v1|apis|apis\/[^/]+\/[^/]+)$/.test(path);

/**
 * Runs `kube-rx` in this process (quicker than a child for the many naming forms) until its
 * first line of output, then as if Ctrl-C; resolves with that line.
 */
async function firstLine(...args: string[]): Promise<string> {
  const controller = new AbortController();
  const out: string[] = [];
  const warnings: string[] = [];
  const exit = runCli(args, {
    out: (text) => out.push(text),
    warn: (line) => warnings.push(line),
    env,
    signal: controller.signal,
    version: 'spec',
  });
  let code: number | undefined;
  void exit.then((c) => (code = c));
  try {
    await until(
      () => out.length > 0 || code !== undefined,
      () => `output of ${args.join(' ')}: ${warnings.join('; ')}`,
      20_000,
    );
  } finally {
    controller.abort();
  }
  expect(await exit).toBe(0);
  return out[0].trimEnd();
}

/** Runs a command that must fail: exit 1, nothing on stdout, one line on stderr. */
async function failure(...args: string[]): Promise<string> {
  const result = await CliProcess.run(main, args, env, 30_000);
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return lines[0];
}

describe('kube-rx watch names resources as kubectl does', () => {
  it.each([
    [['po', 'Pod', 'pods'], 'pod/web-1'],
    [
      [
        'deploy',
        'Deployment',
        'deployments.apps',
        'deploy.apps',
        'deployments.v1.apps',
        'apps/v1/deployments',
      ],
      'deployment.apps/web',
    ],
    [
      [
        'crontabs',
        'ct',
        'CronTab',
        'crontabs.stable.example.com',
        'crontabs.v1.stable.example.com',
      ],
      'crontab.stable.example.com/nightly',
    ],
  ])('%j -> %s', async (forms, name) => {
    const lines = await Promise.all(forms.map((form) => firstLine('watch', form, '-o', 'name')));
    expect(lines).toEqual(forms.map(() => name));
  });

  it('reads discovery once per run, and only the group a plural.group names', async () => {
    api.requests.length = 0;
    const cli = start('watch', 'deployments.apps', '-o', 'name');
    await cli.waitForStdout(/^deployment\.apps\/web$/, 30_000);
    const discovery = api.requests.map((r) => r.path).filter(isDiscovery);
    expect(discovery.sort()).toEqual(['/apis', '/apis/apps/v1']);

    api.requests.length = 0;
    const bare = start('watch', 'ct', '-o', 'name');
    await bare.waitForStdout(/^crontab/, 30_000);
    const paths = api.requests.map((r) => r.path).filter(isDiscovery);
    expect(paths).toContain('/api/v1');
    expect(new Set(paths).size).toBe(paths.length); // no document twice
  });

  it('answers an ambiguous or unknown name with one line that says what to type', async () => {
    expect(await failure('watch', 'widgets')).toBe(
      'kube-rx: ambiguous resource "widgets": it names widgets.stable.example.com, widgets.toys.example.com; give one of these',
    );
    expect(await failure('watch', 'deploymnets')).toMatch(
      /^kube-rx: unknown resource "deploymnets": the server doesn't have a resource type "deploymnets" \(did you mean deployments\.apps\?\)/,
    );
  });
});

describe("kube-rx watch prints the server's columns", () => {
  it("prints a custom resource's printer columns, -o wide adding those of higher priority, and its changes", async () => {
    api.requests.length = 0;
    const table = start('watch', 'crontabs');
    const wide = start('watch', 'ct', '-o', 'wide', '--output-watch-events');
    await table.waitForStdout(/^nightly/, 30_000);
    await wide.waitForStdout(/^ADDED/, 30_000);
    expect(table.stdoutLines).toEqual(['NAME      SPEC        AGE', 'nightly   0 3 * * *   15m']);
    expect(wide.stdoutLines).toEqual([
      'EVENT      NAME      SPEC        REPLICAS   AGE',
      'ADDED      nightly   0 3 * * *   2          15m',
    ]);
    api.update(crontabs, cronTab('nightly', { cronSpec: '0 4 * * *' }));
    await table.waitForStdout(/^nightly {3}0 4 \* \* \* {3}15m$/);
    await wide.waitForStdout(/^MODIFIED {3}nightly {3}0 4 \* \* \* {3}<none> {5}15m$/);
    expect(
      api.requests
        .filter((r) => r.path.endsWith('/crontabs'))
        .every(
          (r) =>
            r.headers.accept === 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
        ),
    ).toBe(true);
  });

  it("prints the server's pod and deployment columns, wide ones with -o wide", async () => {
    const podsCli = start('watch', 'pods', '-o', 'wide');
    const deployCli = start('watch', 'deploy', '-A');
    await podsCli.waitForStdout(/^web-1/, 30_000);
    await deployCli.waitForStdout(/^default/, 30_000);
    expect(podsCli.stdoutLines).toEqual([
      'NAME    READY   STATUS    RESTARTS   AGE   IP         NODE',
      'web-1   1/1     Running   0          77m   10.1.2.3   node-a',
    ]);
    expect(deployCli.stdoutLines).toEqual([
      'NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE',
      'default     web    2/2     2            2           3d',
    ]);
  });

  it("falls back to kube-rx's own columns when the server does not answer Tables", async () => {
    const plain = await withoutTables(api);
    try {
      const plainEnv = isolatedEnv({ KUBECONFIG: writeKubeConfig(plain.kubeConfig) });
      const podsCli = clis.start(main, ['watch', 'po', '-o', 'wide'], plainEnv);
      const crontabsCli = clis.start(main, ['watch', 'crontabs'], plainEnv);
      await podsCli.waitForStdout(/^web-1/, 30_000);
      await crontabsCli.waitForStdout(/^nightly/, 30_000);
      expect(podsCli.stdoutLines).toEqual([
        'NAME    READY   STATUS    RESTARTS   AGE   IP         NODE     NOMINATED NODE   READINESS GATES',
        'web-1   1/1     Running   0          77m   10.1.2.3   node-a   <none>           <none>',
      ]);
      expect(crontabsCli.stdoutLines).toEqual(['NAME      AGE', 'nightly   15m']);
      const accepts = plain.raw.requests.filter((r) => !isDiscovery(r.path));
      expect(accepts.every((r) => String(r.headers.accept).includes('as=Table'))).toBe(true);
    } finally {
      await clis.killAll();
      await plain.stop();
    }
  });

  it('prints one YAML document per event with -o yaml, the whole object', async () => {
    const cli = start('watch', 'ct', '-o', 'yaml', '--output-watch-events');
    await cli.waitForStdout(/^ {4}cronSpec/, 30_000);
    api.create(crontabs, cronTab('weekly', { cronSpec: '@weekly' }));
    await cli.waitForStdout(/@weekly/);
    cli.interrupt();
    const { stdout, code } = await cli.exited;
    expect(code).toBe(0);
    expect(loadAll(stdout)).toEqual([
      {
        type: 'ADDED',
        object: expect.objectContaining({
          kind: 'CronTab',
          metadata: expect.objectContaining({ name: 'nightly' }),
        }),
      },
      { type: 'ADDED', object: expect.objectContaining({ spec: { cronSpec: '@weekly' } }) },
    ]);
  });
});

describe('kube-rx watch when discovery cannot be read (403 on /apis)', () => {
  it('still watches the built-in names and group/version/plural, and says why other names fail', async () => {
    api.faults.fail(403, {
      path: '/apis',
      times: 1000,
      message: 'forbidden: User "dev" cannot get path "/apis"',
    });
    const podsCli = start('watch', 'po');
    const deployCli = start('watch', 'deploy', '-o', 'name');
    const pathCli = start('watch', 'stable.example.com/v1/crontabs', '-o', 'name');
    await podsCli.waitForStdout(/^web-1/, 30_000);
    await deployCli.waitForStdout(/^deployment\.apps\/web$/, 30_000);
    await pathCli.waitForStdout(/^crontab\.stable\.example\.com\/nightly$/, 30_000);
    expect(podsCli.stdoutLines[0]).toBe('NAME    READY   STATUS    RESTARTS   AGE');
    expect(podsCli.stderrLines).toEqual([]);
    expect(await failure('watch', 'crontabs')).toMatch(
      /^kube-rx: unknown resource "crontabs": the server's discovery could not be read \(403 Forbidden: forbidden: User "dev" cannot get path "\/apis".*\), so only the built-in names \(pods, deployments, .*\) and group\/version\/plural work$/,
    );
  });
});
