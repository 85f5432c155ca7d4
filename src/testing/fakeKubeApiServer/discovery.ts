import type { ResourceTypes, ServedType as ResourceType } from './ResourceTypes.js';

/** A JSON document the server answers with. */
export type Document = Record<string, unknown>;

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** What `kubectl get all` lists (the `all` category). */
const ALL_CATEGORY = new Set([
  'pods',
  'services',
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'jobs',
  'cronjobs',
]);

/** The answer of `/version`: the Kubernetes release the fake server speaks. */
export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-kube-rx-fake',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.3',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/**
 * Kubernetes' version priority (GA, then beta, then alpha; higher numbers first): the first
 * of a group's versions is its preferred version.
 */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [0, 0, 0];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i] - ra[i];
  return a < b ? -1 : a > b ? 1 : 0;
}

function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

function apiGroup(name: string, versions: string[]): Document {
  const sorted = [...versions].sort(compareVersions);
  const entries = sorted.map((v) => ({ groupVersion: groupVersion(name, v), version: v }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

function apiResource(t: ResourceType): Document {
  const entry: Document = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: VERBS,
  };
  if (t.shortNames.length > 0) entry.shortNames = t.shortNames;
  if (t.builtin && ALL_CATEGORY.has(t.plural)) entry.categories = ['all'];
  if (t.categories !== undefined && t.categories.length > 0) entry.categories = t.categories;
  return entry;
}

/** The subresources the server serves, as discovery lists them after their resource. */
function subresources(t: ResourceType): Document[] {
  if (!t.builtin) return customSubresources(t);
  const verbs = ['get', 'patch', 'update'];
  const status =
    t.subresources?.status === true
      ? [
          {
            name: `${t.plural}/status`,
            singularName: '',
            namespaced: t.namespaced,
            kind: t.kind,
            verbs,
          },
        ]
      : [];
  if (t.group === '' && t.plural === 'pods') {
    const log = {
      name: 'pods/log',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get'],
    };
    return [log, ...status];
  }
  if (t.group === 'apps' && t.plural === 'deployments') {
    const scale = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
    return [
      { name: 'deployments/scale', singularName: '', namespaced: true, ...scale, verbs },
      ...status,
    ];
  }
  return status;
}

/** A custom resource's `status` and `scale`, as kube-apiserver lists a CRD's subresources. */
function customSubresources(t: ResourceType): Document[] {
  const out: Document[] = [];
  const base = { singularName: '', namespaced: t.namespaced };
  if (t.subresources?.status === true) {
    const verbs = ['get', 'patch', 'update'];
    out.push({ name: `${t.plural}/status`, ...base, kind: t.kind, verbs });
  }
  if (t.subresources?.scale !== undefined) {
    const scale = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
    out.push({ name: `${t.plural}/scale`, ...base, ...scale, verbs: ['get', 'patch', 'update'] });
  }
  return out;
}

function resourceList(types: ResourceType[], group: string, version: string): Document {
  const resources = [...types]
    .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0))
    .flatMap((t) => [apiResource(t), ...subresources(t)]);
  const list: Document = { kind: 'APIResourceList' };
  if (group !== '') list.apiVersion = 'v1';
  list.groupVersion = groupVersion(group, version);
  list.resources = resources;
  return list;
}

/**
 * The legacy discovery documents (`/api`, `/api/v1`, `/apis`, `/apis/{group}`,
 * `/apis/{group}/{version}`), or undefined for any other path. kubectl asks for aggregated
 * discovery first and falls back to these when the answer is plain `application/json`.
 */
export function discoveryDocument(
  path: string,
  types: ResourceTypes,
  serverAddress: string,
): Document | undefined {
  const segments = path.replace(/\/+$/, '').split('/').slice(1);
  const [root, group, version, ...rest] = segments;
  if (rest.length > 0) return undefined;
  if (root === 'api') {
    if (group === undefined) {
      const serverAddressByClientCIDRs = [{ clientCIDR: '0.0.0.0/0', serverAddress }];
      return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs };
    }
    if (group === 'v1' && version === undefined) return resourceList(types.of('', 'v1'), '', 'v1');
    return undefined;
  }
  if (root !== 'apis') return undefined;
  const groups = types.groups();
  if (group === undefined) {
    const list = [...groups].map(([name, versions]) => apiGroup(name, versions));
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: list };
  }
  const versions = groups.get(group);
  if (versions === undefined) return undefined;
  if (version === undefined)
    return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
  if (!versions.includes(version)) return undefined;
  return resourceList(types.of(group, version), group, version);
}

/**
 * `/healthz`, `/livez` and `/readyz` (with `?verbose`, the checks one per line), as plain text;
 * undefined for any other path.
 */
export function healthText(path: string, verbose: boolean): string | undefined {
  const m = /^\/(healthz|livez|readyz)\/?$/.exec(path);
  if (m === null) return undefined;
  if (!verbose) return 'ok';
  const checks = ['ping', 'log', 'etcd'];
  if (m[1] === 'readyz') checks.push('informer-sync', 'shutdown');
  return checks.map((c) => `[+]${c} ok\n`).join('') + `${m[1]} check passed\n`;
}
