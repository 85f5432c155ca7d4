import { WatchError } from '../WatchError.js';
import { BUILTIN_RESOURCES } from '../objects/builtinResources.js';
import { isValidSegment } from '../objects/resourcePath.js';
import { singularOfKind, singularOfPlural } from '../objects/ResourceType.js';
import {
  configmaps,
  deployments,
  events,
  namespaces,
  nodes,
  pods,
  replicasets,
  resource,
  services,
} from '../objects/resources.js';
import type { ResourceRef } from '../types.js';
import { CliError } from './CliError.js';
import type { ApiResource, DiscoveryScope } from './kube/Discovery.js';
import { qualifiedName, suggestions } from './kube/nameSuggestions.js';

/** A resource named on the command line, resolved. */
export interface ResolvedResource {
  ref: ResourceRef;
  /** False for cluster-scoped resources (nodes, namespaces): no namespace goes in their path. */
  namespaced: boolean;
  /** The lower-case kind kubectl prints in `-o name` (`pod`, `deployment.apps`). */
  nameKind: string;
  /** What the user asked for, for messages. */
  label: string;
}

/** A resource argument, parsed: what to look up, before asking the server anything. */
export type ResourceArg =
  /** `group/version/plural` or `version/plural`: taken as given. */
  | { form: 'path'; arg: string; ref: ResourceRef }
  /** `name`, `name.group` or `name.version.group` (name: plural, singular, short name or kind). */
  | {
      form: 'name';
      arg: string;
      name: string;
      group?: string;
      version?: string;
      groupOrVersionGroup?: string;
    };

/** The library's typed resources (`pods`, `deployments`...: their refs carry kind and scope). */
const LIBRARY_REFS: readonly ResourceRef[] = [
  pods,
  deployments,
  services,
  nodes,
  namespaces,
  configmaps,
  replicasets,
  events,
];

/** A typed resource of the library as discovery lists it: its record in the built-in table. */
function builtIn(ref: ResourceRef): ApiResource {
  const type = BUILTIN_RESOURCES.find(
    (t) => t.group === ref.group && t.version === ref.version && t.plural === ref.plural,
  );
  if (type === undefined) throw new Error(`no built-in resource type for ${ref.plural}`);
  return { ...type, shortNames: [...type.shortNames], verbs: ['list', 'watch'], preferred: true };
}

/**
 * The library's typed resources as discovery would list them: what the command knows when
 * discovery cannot be read.
 */
export const BUILT_IN_RESOURCES: readonly ApiResource[] = LIBRARY_REFS.map(builtIn);

/** The plurals `kube-rx watch` knows without discovery, for help and messages. */
export const KNOWN_PLURALS: readonly string[] = BUILT_IN_RESOURCES.map((r) => r.plural);

const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/**
 * Parses a resource argument without asking the server: `pods`, `po`, `Pod`, `deployments.apps`,
 * `deployments.v1.apps`, `v1/pods`, `apps/v1/deployments`. Throws a {@link CliError} for what can
 * never name a resource.
 *
 * @example
 * parseResourceArg('deployments.apps'); // { form: 'name', name: 'deployments', groupOrVersionGroup: 'apps', ... }
 */
export function parseResourceArg(arg: string): ResourceArg {
  if (arg.includes('/')) {
    const parts = arg.split('/');
    if (parts.length > 3 || parts.some((p) => p === '')) {
      throw new CliError(
        `bad resource "${arg}": expected a name, name.group, group/version/plural or version/plural`,
      );
    }
    try {
      return {
        form: 'path',
        arg,
        ref: resource(parts.slice(0, -1).join('/'), parts[parts.length - 1]),
      };
    } catch (error) {
      const why = error instanceof WatchError ? error.message : String(error);
      throw new CliError(`bad resource "${arg}": ${why}`);
    }
  }
  const lower = arg.toLowerCase();
  const dot = lower.indexOf('.');
  const name = dot === -1 ? lower : lower.slice(0, dot);
  const rest = dot === -1 ? undefined : lower.slice(dot + 1);
  if (!isValidSegment('plural', name) || (rest !== undefined && !isValidSegment('group', rest))) {
    throw new CliError(
      `bad resource "${arg}": expected a name (pods, po, Pod), name.group (deployments.apps), name.version.group or group/version/plural`,
    );
  }
  return { form: 'name', arg, name, ...(rest !== undefined && { groupOrVersionGroup: rest }) };
}

/**
 * The discovery a parsed argument needs: a name alone needs every group, `name.group` that
 * group (or, for `name.version.group`, that group and version), a path its group version.
 *
 * @example
 * discoveryScope(parseResourceArg('deploy')); // { kind: 'everything' }
 */
export function discoveryScope(parsed: ResourceArg): DiscoveryScope {
  if (parsed.form === 'path') {
    const { group, version } = parsed.ref;
    return { kind: 'groupVersion', group, version: version! };
  }
  if (parsed.groupOrVersionGroup === undefined) return { kind: 'everything' };
  const [first, ...others] = parsed.groupOrVersionGroup.split('.');
  // `deployments.v1.apps` may also be the group `v1.apps`: read the whole group either way.
  return {
    kind: 'group',
    group: VERSION.test(first) && others.length > 0 ? others.join('.') : parsed.groupOrVersionGroup,
  };
}

/**
 * Resolves a parsed argument against the server's resources, as kubectl does: the name is a
 * plural, a singular, a short name or a kind (case-insensitive), in that order of precedence;
 * the core group wins over other groups (kubectl gives `events` to v1, not events.k8s.io); a
 * group's preferred version wins unless a version is given. A name that matches resources of
 * several other groups is ambiguous, an unknown name is reported with the names nearest to it:
 * both as a {@link CliError} with one line. `failed` names group versions whose discovery failed.
 *
 * @example
 * resolveResourceArg(parseResourceArg('deploy'), resources).ref; // apps/v1 deployments
 */
export function resolveResourceArg(
  parsed: ResourceArg,
  resources: readonly ApiResource[],
  failed: readonly string[] = [],
): ResolvedResource {
  if (parsed.form === 'path') {
    const { group, version, plural } = parsed.ref;
    const found = resources.find(
      (r) => r.group === group && r.version === version && r.plural === plural,
    );
    if (found) return resolved(found, parsed.arg);
    const near = suggestions(plural, resources);
    throw new CliError(
      `unknown resource "${parsed.arg}": the server doesn't have a resource type "${plural}" in ${group ? `${group}/` : ''}${version}${didYouMean(near)}${failedNote(failed)}`,
    );
  }
  for (const [group, version] of groupReadings(parsed)) {
    const inScope = resources.filter(
      (r) =>
        (group === undefined || r.group === group) &&
        (version === undefined || r.version === version),
    );
    const found = match(parsed, inScope);
    if (found) return resolved(found, parsed.arg);
  }
  const near = suggestions(parsed.name, resources);
  throw new CliError(
    `unknown resource "${parsed.arg}": the server doesn't have a resource type "${parsed.arg}"${didYouMean(near)}${failedNote(failed)}`,
  );
}

/**
 * Resolves without discovery: the eight built-in resources by any of their names, and any
 * `group/version/plural` as given (namespaced unless it is a built-in one: use -A for a
 * cluster-scoped custom resource).
 *
 * @example
 * resolveWithoutDiscovery(parseResourceArg('po'), '403 Forbidden').ref; // v1 pods
 */
export function resolveWithoutDiscovery(parsed: ResourceArg, why: string): ResolvedResource {
  if (parsed.form === 'path') {
    const { group, version, plural } = parsed.ref;
    const known = BUILT_IN_RESOURCES.find(
      (r) => r.group === group && r.version === version && r.plural === plural,
    );
    if (known) return resolved(known, parsed.arg);
    const kind = singularOfPlural(plural); // the kind is unknown without discovery: a guess
    return {
      ref: parsed.ref,
      namespaced: true,
      nameKind: group ? `${kind}.${group}` : kind,
      label: parsed.arg,
    };
  }
  const builtIn =
    parsed.groupOrVersionGroup === undefined ||
    parsed.groupOrVersionGroup === 'apps' ||
    parsed.groupOrVersionGroup === 'v1.apps';
  const found = builtIn ? matchBuiltIn(parsed) : undefined;
  if (found) return resolved(found, parsed.arg);
  throw new CliError(
    `unknown resource "${parsed.arg}": the server's discovery could not be read (${why}), so only the built-in names (${KNOWN_PLURALS.join(', ')}) and group/version/plural work`,
  );
}

function matchBuiltIn(parsed: Extract<ResourceArg, { form: 'name' }>): ApiResource | undefined {
  const found = match(parsed, BUILT_IN_RESOURCES);
  if (!found || parsed.groupOrVersionGroup === undefined) return found;
  return found.group === 'apps' ? found : undefined;
}

/** The (group, version) readings of `name.rest`: version.group first, then group; none: any. */
function groupReadings(
  parsed: Extract<ResourceArg, { form: 'name' }>,
): Array<[string | undefined, string | undefined]> {
  const rest = parsed.groupOrVersionGroup;
  if (rest === undefined) return [[undefined, undefined]];
  const [first, ...others] = rest.split('.');
  const readings: Array<[string | undefined, string | undefined]> = [];
  if (VERSION.test(first) && others.length > 0) readings.push([others.join('.'), first]);
  readings.push([rest, undefined]);
  return readings;
}

type Matcher = (r: ApiResource, name: string) => boolean;

// kubectl's precedence: what a resource is called beats how it is abbreviated.
const MATCHERS: Matcher[] = [
  (r, name) => r.plural === name,
  (r, name) => r.singular === name,
  (r, name) => r.shortNames.includes(name),
  (r, name) => r.kind.toLowerCase() === name,
];

function match(
  parsed: Extract<ResourceArg, { form: 'name' }>,
  resources: readonly ApiResource[],
): ApiResource | undefined {
  for (const matches of MATCHERS) {
    const found = resources.filter((r) => matches(r, parsed.name));
    if (found.length === 0) continue;
    const groups = [...new Set(found.map((r) => r.group))];
    // The core group wins, as kubectl gives it the highest priority.
    const group = groups.includes('') ? '' : groups.length === 1 ? groups[0] : undefined;
    if (group === undefined) {
      const names = [...new Set(found.map(qualifiedName))].sort();
      throw new CliError(
        `ambiguous resource "${parsed.arg}": it names ${names.join(', ')}; give one of these`,
      );
    }
    const inGroup = found.filter((r) => r.group === group);
    return inGroup.find((r) => r.preferred) ?? inGroup[0];
  }
  return undefined;
}

function resolved(r: ApiResource, label: string): ResolvedResource {
  const kind = singularOfKind(r.kind);
  return {
    ref: Object.freeze({
      group: r.group,
      version: r.version,
      plural: r.plural,
      kind: r.kind,
      namespaced: r.namespaced,
    }),
    namespaced: r.namespaced,
    nameKind: r.group ? `${kind}.${r.group}` : kind,
    label,
  };
}

function didYouMean(near: string[]): string {
  return near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : '';
}

function failedNote(failed: readonly string[]): string {
  return failed.length > 0 ? `; discovery failed for ${failed.join('; ')}` : '';
}
