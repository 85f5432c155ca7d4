import { isValidSegment } from '../../objects/resourcePath.js';
import type { ResourceRef } from '../../types.js';

/** What a request path names. */
export type Route =
  | { kind: 'collection'; resource: ResourceRef<unknown>; namespace?: string }
  | {
      kind: 'object';
      resource: ResourceRef<unknown>;
      namespace?: string;
      name: string;
      /** `scale` (deployments, custom resources) or `status`: which the type serves is checked later. */
      subresource?: 'scale' | 'status';
    }
  | { kind: 'log'; namespace: string; name: string };

/** Object names: most kinds allow DNS subdomains; a few (RBAC) allow more, but no `/`. */
const OBJECT_NAME = /^[^/\s%]{1,253}$/;

/**
 * Parses `/api/v1/...` and `/apis/{group}/{version}/...` paths; `undefined` for anything else
 * (the server answers 404).
 */
export function parsePath(pathname: string): Route | undefined {
  let segments: string[];
  try {
    segments = pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1];
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1];
    version = segments[2];
    rest = segments.slice(3);
    if (!isValidSegment('group', group)) return undefined;
  } else return undefined;
  if (!isValidSegment('version', version)) return undefined;

  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    if (!isValidSegment('namespace', namespace)) return undefined;
    rest = rest.slice(2);
  }
  const [plural, name, sub, ...more] = rest;
  if (plural === undefined || !isValidSegment('plural', plural) || more.length > 0)
    return undefined;
  const resource: ResourceRef<unknown> = { group, version, plural };
  if (name === undefined) return { kind: 'collection', resource, namespace };
  if (!OBJECT_NAME.test(name)) return undefined;
  if (sub === undefined) return { kind: 'object', resource, namespace, name };
  if (sub === 'log' && group === '' && plural === 'pods' && namespace !== undefined) {
    return { kind: 'log', namespace, name };
  }
  if (sub === 'scale' || sub === 'status') {
    return { kind: 'object', resource, namespace, name, subresource: sub };
  }
  return undefined;
}
