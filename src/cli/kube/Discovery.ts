import type { WatchError } from '../../WatchError.js';
import type { Cluster } from '../../types.js';
import { isValidSegment } from '../../objects/resourcePath.js';
import { isValidKind, singularOfKind } from '../../objects/ResourceType.js';
import type { ResourceType } from '../../objects/ResourceType.js';
import { apiGet } from './apiGet.js';

/**
 * One resource the API server serves, from its discovery documents: the shared
 * {@link ResourceType} record (its singular derived from the kind when the server leaves it
 * empty, as older servers do) with its verbs and whether its version is preferred.
 */
export interface ApiResource extends ResourceType {
  verbs: string[];
  /** Whether `version` is the group's preferred version. */
  preferred: boolean;
}

/** A group and its versions, preferred first, as `/apis` lists them. */
export interface ApiGroup {
  name: string;
  versions: string[];
}

/** The largest discovery document read: a real one is tens of kilobytes. */
const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
/** Group versions fetched at once: a cluster has dozens, and each is one request. */
const CONCURRENCY = 8;

/** Discovery could not be read at all (its root documents failed). */
export class DiscoveryUnavailableError extends Error {
  override readonly name = 'DiscoveryUnavailableError';
  constructor(override readonly cause: WatchError) {
    super(cause.message);
  }
}

/** What a lookup found: the resources, and the group versions whose documents failed. */
export interface DiscoveredResources {
  resources: ApiResource[];
  /** `group/version: why`, for messages (an aggregated API that is down is common). */
  failed: string[];
}

/** Which part of discovery a lookup needs. */
export type DiscoveryScope =
  | { kind: 'everything' }
  | { kind: 'group'; group: string }
  | { kind: 'groupVersion'; group: string; version: string };

/**
 * The API server's discovery documents (`/api`, `/api/v1`, `/apis`, `/apis/{group}/{version}`),
 * each read at most once per run: every answer (or failure) is kept, so resolving a second name
 * or retrying costs no request. A lookup reads only what its scope needs: a name without a group
 * needs every group's preferred version, `plural.group` only that group's versions.
 *
 * @example
 * const discovery = new Discovery(cluster, signal);
 * const { resources } = await discovery.resources({ kind: 'everything' });
 */
export class Discovery {
  private readonly documents = new Map<string, Promise<any>>();

  constructor(
    private readonly cluster: Cluster,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * The resources in `scope`. Rejects with {@link DiscoveryUnavailableError} when the root
   * documents (`/api`, `/api/v1`, `/apis`) cannot be read; a failing group version is skipped
   * and named in `failed`.
   */
  async resources(scope: DiscoveryScope): Promise<DiscoveredResources> {
    const wanted: Array<{ group: string; version: string; preferred: boolean }> = [];
    if (scope.kind === 'everything') {
      for (const version of await this.coreVersions())
        wanted.push({ group: '', version, preferred: version === 'v1' });
    } else if (scope.group === '') {
      // The core group is not in /apis: v1/secrets needs /api/v1 only.
      const version = scope.kind === 'groupVersion' ? scope.version : 'v1';
      wanted.push({ group: '', version, preferred: version === 'v1' });
    }
    const groups =
      wanted.some((w) => w.group === '') && scope.kind !== 'everything' ? [] : await this.groups();
    for (const group of groups) {
      if (scope.kind !== 'everything' && group.name !== scope.group) continue;
      group.versions.forEach((version, i) => {
        if (scope.kind === 'groupVersion' && version !== scope.version) return;
        if (scope.kind === 'everything' && i > 0) return; // preferred versions resolve names
        wanted.push({ group: group.name, version, preferred: i === 0 });
      });
    }
    const resources: ApiResource[] = [];
    const failed: string[] = [];
    await forEachLimited(wanted, CONCURRENCY, async ({ group, version, preferred }) => {
      const groupVersion = group ? `${group}/${version}` : version;
      try {
        const list = await this.document(group ? `/apis/${groupVersion}` : `/api/${version}`);
        resources.push(...apiResources(list, group, version, preferred));
      } catch (error) {
        if (group === '') throw new DiscoveryUnavailableError(error as WatchError);
        failed.push(`${groupVersion}: ${(error as Error).message}`);
      }
    });
    // Fetched concurrently; put back in discovery order (the order kubectl gives priority by).
    const order = wanted.map((w) => `${w.group}/${w.version}`);
    resources.sort(
      (a, b) => order.indexOf(`${a.group}/${a.version}`) - order.indexOf(`${b.group}/${b.version}`),
    );
    return { resources, failed };
  }

  /** The groups of `/apis`, each with its versions, the preferred one first. */
  async groups(): Promise<ApiGroup[]> {
    const list = await this.root('/apis');
    return apiGroups(list);
  }

  private async coreVersions(): Promise<string[]> {
    const versions = (await this.root('/api'))?.versions;
    const valid = Array.isArray(versions) ? versions.filter(isString) : [];
    return valid.length > 0 ? valid : ['v1'];
  }

  private async root(path: string): Promise<any> {
    try {
      return await this.document(path);
    } catch (error) {
      throw new DiscoveryUnavailableError(error as WatchError);
    }
  }

  /** One document, read once: later calls share the first call's answer or failure. */
  private document(path: string): Promise<any> {
    let answer = this.documents.get(path);
    if (!answer) {
      answer = apiGet(this.cluster, path, {
        signal: this.signal,
        maxBytes: MAX_DOCUMENT_BYTES,
      }).then((got) => {
        if (!got.ok) throw got.error;
        if (typeof got.value !== 'object' || got.value === null)
          throw new Error(`${path} is not a discovery document`);
        return got.value;
      });
      this.documents.set(path, answer);
    }
    return answer;
  }
}

/**
 * The groups of an APIGroupList, each with its versions, the preferred one first.
 *
 * @example
 * apiGroups({ groups: [{ name: 'apps', versions: [{ version: 'v1' }], preferredVersion: { version: 'v1' } }] });
 * // [{ name: 'apps', versions: ['v1'] }]
 */
export function apiGroups(list: any): ApiGroup[] {
  const groups: ApiGroup[] = [];
  for (const group of Array.isArray(list?.groups) ? list.groups : []) {
    // Names go into request paths and messages: only well-formed ones are taken.
    if (!isString(group?.name) || !isValidSegment('group', group.name)) continue;
    const versions: string[] = (Array.isArray(group.versions) ? group.versions : [])
      .map((v: any) => v?.version)
      .filter((v: unknown) => isString(v) && isValidSegment('version', v));
    const preferred = group.preferredVersion?.version;
    if (isString(preferred) && versions.includes(preferred)) {
      versions.splice(versions.indexOf(preferred), 1);
      versions.unshift(preferred);
    }
    if (versions.length > 0) groups.push({ name: group.name, versions });
  }
  return groups;
}

/**
 * The resources of an APIResourceList, without subresources (`pods/log`).
 *
 * @example
 * apiResources({ resources: [{ name: 'pods', singularName: 'pod', kind: 'Pod', namespaced: true, shortNames: ['po'] }] }, '', 'v1', true);
 */
export function apiResources(
  list: any,
  group: string,
  version: string,
  preferred: boolean,
): ApiResource[] {
  const out: ApiResource[] = [];
  for (const r of Array.isArray(list?.resources) ? list.resources : []) {
    // Subresources (`pods/log`) are not watched; names go into paths, messages and output.
    if (!isString(r?.name) || !isValidSegment('plural', r.name) || !isString(r.kind)) continue;
    if (!isValidKind(r.kind)) continue;
    out.push({
      group,
      version,
      plural: r.name,
      singular:
        isString(r.singularName) && isValidSegment('plural', r.singularName)
          ? r.singularName
          : singularOfKind(r.kind),
      kind: r.kind,
      namespaced: r.namespaced === true,
      shortNames: Array.isArray(r.shortNames)
        ? r.shortNames.filter((n: unknown) => isString(n) && isValidSegment('plural', n))
        : [],
      verbs: Array.isArray(r.verbs) ? r.verbs.filter(isString) : [],
      preferred,
    });
  }
  return out;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** Runs `task` over `items`, at most `limit` at a time; rejects with the first failure. */
async function forEachLimited<I>(
  items: I[],
  limit: number,
  task: (item: I) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
