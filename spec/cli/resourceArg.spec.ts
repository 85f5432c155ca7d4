import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { CliError } from '../../src/cli/CliError.js';
import {
  apiGroups,
  apiResources,
  Discovery,
  DiscoveryUnavailableError,
  type ApiResource,
} from '../../src/cli/kube/Discovery.js';
import {
  discoveryScope,
  parseResourceArg,
  resolveResourceArg,
  resolveWithoutDiscovery,
} from '../../src/cli/resourceArg.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';

// Discovery as the test kit serves it (kube-apiserver 1.32's built-in types), with custom
// resources: two groups that both serve `widgets`, a group with two versions (v2 preferred), and
// an aggregated API whose group version fails (metrics.k8s.io, listed in /apis, 503 when read).
let server: FakeKubeApiServer;
let everything: ApiResource[];

/** The aggregated API that is down: listed in /apis, its document answers 503. */
const METRICS = '/apis/metrics.k8s.io/v1beta1';

function failMetrics(): void {
  server.faults.fail(503, { path: METRICS, times: 1000 });
}

beforeAll(async () => {
  server = await FakeKubeApiServer.start();
  server.defineResource({
    group: 'stable.example.com',
    version: 'v1',
    plural: 'crontabs',
    kind: 'CronTab',
    shortNames: ['ct'],
  });
  const widget = { plural: 'widgets', kind: 'Widget', version: 'v1' };
  server.defineResource({ ...widget, group: 'stable.example.com', namespaced: false });
  server.defineResource({ ...widget, group: 'toys.example.com', shortNames: ['wd'] });
  const gadget = { group: 'gadgets.example.com', plural: 'gadgets', kind: 'Gadget' };
  server.defineResource({ ...gadget, version: 'v1', shortNames: ['gd'] });
  server.defineResource({ ...gadget, version: 'v2', shortNames: ['gd'] });
  server.defineResource({
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    plural: 'pods',
    kind: 'PodMetrics',
  });
  failMetrics();
  const discovery = new Discovery(server.kubeConfig(), new AbortController().signal);
  everything = (await discovery.resources({ kind: 'everything' })).resources;
  const gadgets = await discovery.resources({ kind: 'group', group: 'gadgets.example.com' });
  everything.push(...gadgets.resources.filter((r) => !r.preferred));
});

afterAll(() => server?.stop());

/** What discovery gave: every preferred version (core first), and gadgets.example.com/v1. */
function catalog(): ApiResource[] {
  return everything;
}

const resolve = (arg: string) => resolveResourceArg(parseResourceArg(arg), catalog());
const refOf = (arg: string) => {
  const { ref } = resolve(arg);
  return `${ref.group}/${ref.version}/${ref.plural}`;
};

describe('resource names resolved through discovery, as kubectl resolves them', () => {
  it.each([
    ['pods', '/v1/pods'],
    ['pod', '/v1/pods'],
    ['po', '/v1/pods'],
    ['Pod', '/v1/pods'],
    ['PODS', '/v1/pods'],
    ['deploy', 'apps/v1/deployments'],
    ['Deployment', 'apps/v1/deployments'],
    ['deployments.apps', 'apps/v1/deployments'],
    ['deploy.apps', 'apps/v1/deployments'],
    ['Deployment.apps', 'apps/v1/deployments'],
    ['deployments.v1.apps', 'apps/v1/deployments'],
    ['sts', 'apps/v1/statefulsets'],
    ['crontabs', 'stable.example.com/v1/crontabs'],
    ['ct', 'stable.example.com/v1/crontabs'],
    ['CronTab', 'stable.example.com/v1/crontabs'],
    ['crontabs.stable.example.com', 'stable.example.com/v1/crontabs'],
    ['crontabs.v1.stable.example.com', 'stable.example.com/v1/crontabs'],
    ['hpa', 'autoscaling/v2/horizontalpodautoscalers'],
    ['gd', 'gadgets.example.com/v2/gadgets'],
    ['gadgets.v1.gadgets.example.com', 'gadgets.example.com/v1/gadgets'],
    ['events', '/v1/events'],
    ['events.events.k8s.io', 'events.k8s.io/v1/events'],
    ['apps/v1/deployments', 'apps/v1/deployments'],
    ['v1/secrets', '/v1/secrets'],
    ['widgets.toys.example.com', 'toys.example.com/v1/widgets'],
    ['wd', 'toys.example.com/v1/widgets'],
  ])('%s -> %s', (arg, ref) => expect(refOf(arg)).toBe(ref));

  it("knows scope and kubectl's -o name kind from discovery", () => {
    expect(resolve('ns')).toMatchObject({ namespaced: false, nameKind: 'namespace' });
    expect(resolve('ct')).toMatchObject({
      namespaced: true,
      nameKind: 'crontab.stable.example.com',
    });
    expect(resolve('stable.example.com/v1/widgets')).toMatchObject({
      namespaced: false,
      nameKind: 'widget.stable.example.com',
    });
  });

  it('says a name two groups serve is ambiguous, in one line that names both', () => {
    expect(() => resolve('widgets')).toThrow(CliError);
    expect(() => resolve('widgets')).toThrow(
      'ambiguous resource "widgets": it names widgets.stable.example.com, widgets.toys.example.com; give one of these',
    );
  });

  it('says an unknown name is unknown, with the nearest names', () => {
    expect(() => resolve('deploymnets')).toThrow(
      'unknown resource "deploymnets": the server doesn\'t have a resource type "deploymnets" (did you mean deployments.apps?)',
    );
    expect(() => resolve('crontab.other.example.com')).toThrow(
      /did you mean crontabs\.stable\.example\.com[,?]/,
    );
    expect(() => resolve('apps/v1/deploymentz')).toThrow(
      /"apps\/v1\/deploymentz": the server doesn't have a resource type "deploymentz" in apps\/v1 \(did you mean deployments\.apps\?\)/,
    );
    expect(() => resolve('zzzzzz')).toThrow(/doesn't have a resource type "zzzzzz"$/);
  });

  it('names the group versions whose discovery failed when a name is unknown', () => {
    expect(() =>
      resolveResourceArg(parseResourceArg('podmetrics'), catalog(), [
        'metrics.k8s.io/v1beta1: 503',
      ]),
    ).toThrow(/; discovery failed for metrics\.k8s\.io\/v1beta1: 503$/);
  });

  it('refuses what can never name a resource before asking the server', () => {
    expect(() => parseResourceArg('apps/v1/Bad_Plural')).toThrow(
      /bad resource "apps\/v1\/Bad_Plural"/,
    );
    expect(() => parseResourceArg('a/b/c/d')).toThrow(/bad resource/);
    expect(() => parseResourceArg('pods..apps')).toThrow(/bad resource/);
    expect(() => parseResourceArg('pods?watch=1')).toThrow(CliError);
  });

  it('reads only the discovery a form needs', () => {
    expect(discoveryScope(parseResourceArg('po'))).toEqual({ kind: 'everything' });
    expect(discoveryScope(parseResourceArg('deployments.apps'))).toEqual({
      kind: 'group',
      group: 'apps',
    });
    expect(discoveryScope(parseResourceArg('deployments.v1.apps'))).toEqual({
      kind: 'group',
      group: 'apps',
    });
    expect(discoveryScope(parseResourceArg('apps/v1/deployments'))).toEqual({
      kind: 'groupVersion',
      group: 'apps',
      version: 'v1',
    });
  });
});

describe('discovery documents from a hostile server', () => {
  it('takes only well-formed names: they go into request paths, messages and output', () => {
    const groups = apiGroups({
      groups: [
        { name: '../../api', versions: [{ version: 'v1' }] },
        { name: 'ok.example.com', versions: [{ version: 'v1/../../x' }, { version: 'v2' }] },
        { name: 'evil\u001b]0;x\u0007', versions: [{ version: 'v1' }] },
      ],
    });
    expect(groups).toEqual([{ name: 'ok.example.com', versions: ['v2'] }]);
    const resources = apiResources(
      {
        resources: [
          { name: 'pods/log', kind: 'Pod' },
          { name: 'things?watch=1', kind: 'Thing' },
          { name: 'widgets', kind: 'Widget\u001b[2J', singularName: 'widget' },
          { name: 'gadgets', kind: 'Gadget', singularName: 'G\u0007', shortNames: ['gd', 'x/y'] },
        ],
      },
      'ok.example.com',
      'v2',
      true,
    );
    expect(resources.map((r) => [r.plural, r.singular, r.shortNames])).toEqual([
      ['gadgets', 'gadget', ['gd']],
    ]);
  });
});

describe('resource names without discovery', () => {
  const without = (arg: string) => resolveWithoutDiscovery(parseResourceArg(arg), '403 Forbidden');

  it('still knows the eight built-in resources by every name, and group/version/plural', () => {
    expect(without('po').ref).toEqual({
      group: '',
      version: 'v1',
      plural: 'pods',
      kind: 'Pod',
      namespaced: true,
    });
    expect(without('Deployment')).toMatchObject({
      ref: { group: 'apps', plural: 'deployments' },
      nameKind: 'deployment.apps',
    });
    expect(without('deployments.apps').ref.plural).toBe('deployments');
    expect(without('ns').namespaced).toBe(false);
    expect(without('stable.example.com/v1/crontabs')).toMatchObject({
      ref: { group: 'stable.example.com', version: 'v1', plural: 'crontabs' },
      namespaced: true,
    });
    expect(without('v1/nodes').namespaced).toBe(false);
  });

  it('says why anything else cannot be resolved', () => {
    expect(() => without('crontabs')).toThrow(
      /^unknown resource "crontabs": the server's discovery could not be read \(403 Forbidden\), so only the built-in names \(pods, deployments, .*\) and group\/version\/plural work$/,
    );
    expect(() => without('pods.metrics.k8s.io')).toThrow(/discovery could not be read/);
  });
});

describe('Discovery over HTTP', () => {
  beforeEach(() => {
    server.requests.length = 0;
    server.faults.reset();
    failMetrics();
  });

  /** `/apis` as the server lists it: each group's name and its preferred version. */
  async function groupList(): Promise<{ name: string; preferred: string }[]> {
    const headers = { accept: 'application/json', authorization: `Bearer ${server.token}` };
    const answer = await fetch(`${server.url}/apis`, { headers });
    const { groups } = (await answer.json()) as {
      groups: { name: string; preferredVersion: { version: string } }[];
    };
    server.requests.length = 0;
    return groups.map((g) => ({ name: g.name, preferred: g.preferredVersion.version }));
  }

  it("reads every group's preferred version once, skips a failing aggregated API, and keeps what it read", async () => {
    const groups = await groupList();
    const discovery = new Discovery(server.kubeConfig(), new AbortController().signal);
    const first = await discovery.resources({ kind: 'everything' });
    expect(first.failed).toEqual([expect.stringMatching(/^metrics\.k8s\.io\/v1beta1: .*503/)]);
    const paths = server.requests.map((r) => r.path).sort();
    expect(paths).toEqual(
      ['/api', '/api/v1', '/apis', ...groups.map((g) => `/apis/${g.name}/${g.preferred}`)].sort(),
    );
    expect(paths).toContain(METRICS);
    expect(paths).toContain('/apis/gadgets.example.com/v2');
    expect(server.requests.every((r) => r.headers.accept === 'application/json')).toBe(true);
    // Core first, then the groups in the server's order, whatever order the answers came in.
    expect([...new Set(first.resources.map((r) => r.group))]).toEqual([
      '',
      ...groups.map((g) => g.name).filter((name) => name !== 'metrics.k8s.io'),
    ]);
    expect(resolveResourceArg(parseResourceArg('deploy'), first.resources).ref.group).toBe('apps');

    await discovery.resources({ kind: 'everything' });
    await discovery.resources({ kind: 'group', group: 'apps' });
    expect(server.requests).toHaveLength(paths.length);
  });

  it('reads only the named group for plural.group', async () => {
    const discovery = new Discovery(server.kubeConfig(), new AbortController().signal);
    const { resources } = await discovery.resources({
      kind: 'group',
      group: 'gadgets.example.com',
    });
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      '/apis',
      '/apis/gadgets.example.com/v1',
      '/apis/gadgets.example.com/v2',
    ]);
    expect(resources.map((r) => `${r.version}:${r.preferred}`)).toEqual(['v2:true', 'v1:false']);
  });

  it('reads only /api/v1 for a core version/plural, so a 403 on /apis does not matter', async () => {
    server.faults.fail(403, { path: '/apis', times: 1000 });
    const discovery = new Discovery(server.kubeConfig(), new AbortController().signal);
    const scope = discoveryScope(parseResourceArg('v1/secrets'));
    expect(scope).toEqual({ kind: 'groupVersion', group: '', version: 'v1' });
    const { resources } = await discovery.resources(scope);
    expect(server.requests.map((r) => r.path)).toEqual(['/api/v1']);
    expect(resolveResourceArg(parseResourceArg('v1/secrets'), resources).nameKind).toBe('secret');
  });

  it('is unavailable when /apis answers 403', async () => {
    server.faults.fail(403, { path: '/apis', times: 1000 });
    const discovery = new Discovery(server.kubeConfig(), new AbortController().signal);
    const failure = discovery.resources({ kind: 'everything' });
    await expect(failure).rejects.toThrow(DiscoveryUnavailableError);
    await expect(failure).rejects.toMatchObject({ cause: { statusCode: 403 } });
  });
});
