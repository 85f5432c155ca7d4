import type { ResourceRef } from '../../types.js';
import type { ResourceId } from './objectStore.js';

/** What a request path names. */
export type Route =
  | { kind: 'collection'; resource: ResourceId; namespace?: string }
  | { kind: 'object'; resource: ResourceId; namespace?: string; name: string }
  | { kind: 'log'; namespace: string; name: string };

const VERSION = /^v\d+((alpha|beta)\d+)?$/;
const PLURAL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Object names: most kinds allow DNS subdomains; a few (RBAC) allow more, but no `/`. */
const OBJECT_NAME = /^[^/\s%]{1,253}$/;

/** Converts a public {@link ResourceRef} to the store's id. */
export function resourceId(ref: ResourceRef<unknown>): ResourceId {
  return { group: ref.group, version: ref.apiVersion, plural: ref.plural };
}

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
    if (!DNS_SUBDOMAIN.test(group)) return undefined;
  } else return undefined;
  if (!VERSION.test(version)) return undefined;

  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    if (!DNS_LABEL.test(namespace) || namespace.length > 63) return undefined;
    rest = rest.slice(2);
  }
  const [plural, name, sub, ...more] = rest;
  if (plural === undefined || !PLURAL.test(plural) || more.length > 0) return undefined;
  const resource: ResourceId = { group, version, plural };
  if (name === undefined) return { kind: 'collection', resource, namespace };
  if (!OBJECT_NAME.test(name)) return undefined;
  if (sub === undefined) return { kind: 'object', resource, namespace, name };
  if (sub === 'log' && group === '' && plural === 'pods' && namespace !== undefined) {
    return { kind: 'log', namespace, name };
  }
  return undefined;
}
