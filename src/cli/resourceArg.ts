import { WatchError } from '../WatchError.js';
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
} from '../sources/resources.js';
import type { ResourceRef } from '../types.js';
import { CliError } from './errors.js';

/** A resource named on the command line, resolved. */
export interface ResolvedResource {
  ref: ResourceRef;
  /** False for cluster-scoped resources (nodes, namespaces): no namespace goes in their path. */
  namespaced: boolean;
  /** The lower-case singular kubectl prints in `-o name` (`pod`, `deployment.apps`). */
  nameKind: string;
  /** What the user asked for, for messages. */
  label: string;
}

interface KnownResource {
  ref: ResourceRef;
  names: string[];
  namespaced: boolean;
}

// The library's typed resources the command knows without asking the server; kubectl's names.
const KNOWN: KnownResource[] = [
  { ref: pods, names: ['po', 'pod'], namespaced: true },
  { ref: deployments, names: ['deploy', 'deployment'], namespaced: true },
  { ref: services, names: ['svc', 'service'], namespaced: true },
  { ref: nodes, names: ['no', 'node'], namespaced: false },
  { ref: namespaces, names: ['ns', 'namespace'], namespaced: false },
  { ref: configmaps, names: ['cm', 'configmap'], namespaced: true },
  { ref: replicasets, names: ['rs', 'replicaset'], namespaced: true },
  { ref: events, names: ['ev', 'event'], namespaced: true },
];

/** The plurals `kube-rx watch` knows by name, for help and messages. */
export const KNOWN_PLURALS: readonly string[] = KNOWN.map((k) => k.ref.plural);

/**
 * Resolves `pods`, `po`, `deploy`, `v1/pods`, `apps/v1/deployments` or
 * `stable.example.com/v1/crontabs` to a resource. A name that is not one of the known short
 * forms must come as group/version/plural (or version/plural for the core group): without
 * discovery the command cannot guess a group. Anything given that way is taken as namespaced
 * (use `-A` for a cluster-scoped custom resource).
 *
 * @example
 * resolveResourceArg('deploy').ref; // { group: 'apps', apiVersion: 'v1', plural: 'deployments' }
 */
export function resolveResourceArg(arg: string): ResolvedResource {
  const parts = arg.split('/');
  if (parts.length === 1) {
    const lower = arg.toLowerCase();
    const known = KNOWN.find((k) => k.ref.plural === lower || k.names.includes(lower));
    if (!known) {
      throw new CliError(
        `unknown resource "${arg}": known names are ${KNOWN_PLURALS.join(', ')}; give any other resource as group/version/plural (e.g. apps/v1/statefulsets) or version/plural for the core group (e.g. v1/secrets)`,
      );
    }
    return resolved(known.ref, arg, known.namespaced);
  }
  if (parts.length > 3 || parts.some((p) => p === '')) {
    throw new CliError(
      `bad resource "${arg}": expected a plural, group/version/plural or version/plural`,
    );
  }
  let ref: ResourceRef;
  try {
    ref = resource(parts.slice(0, -1).join('/'), parts[parts.length - 1]);
  } catch (error) {
    const why = error instanceof WatchError ? error.message : String(error);
    throw new CliError(`bad resource "${arg}": ${why}`);
  }
  const known = KNOWN.find(
    (k) =>
      k.ref.group === ref.group &&
      k.ref.apiVersion === ref.apiVersion &&
      k.ref.plural === ref.plural,
  );
  return resolved(ref, arg, known?.namespaced ?? true);
}

function resolved(ref: ResourceRef, label: string, namespaced: boolean): ResolvedResource {
  const singular = singularOf(ref.plural);
  return { ref, namespaced, nameKind: ref.group ? `${singular}.${ref.group}` : singular, label };
}

/** `deployments` -> `deployment`, `policies` -> `policy`, `ingresses` -> `ingress`. */
function singularOf(plural: string): string {
  if (plural.endsWith('ies')) return `${plural.slice(0, -3)}y`;
  if (/(ss|x|z|ch|sh)es$/.test(plural)) return plural.slice(0, -2);
  if (plural.endsWith('s')) return plural.slice(0, -1);
  return plural;
}
