import type { ResourceRef } from '../types.js';
import { versionOf } from './versionOf.js';

/**
 * What makes two resource refs the same resource: group, version, plural and shape (a
 * `metadataOnly` ref is another watch), as one string. The one rule `createInformers` shares
 * upstreams by and a controller finds its stores by; `kind` and `namespaced` describe the
 * resource, they do not make it another one.
 *
 * @example
 * resourceIdentity(pods) === resourceIdentity({ group: '', version: 'v1', plural: 'pods' }); // true
 * resourceIdentity(metadataOnly(pods)) === resourceIdentity(pods); // false
 */
export function resourceIdentity(resource: ResourceRef<unknown>): string {
  const { group, plural } = resource;
  const shape = (resource as { shape?: string }).shape ?? 'object';
  return JSON.stringify([group, versionOf(resource), plural, shape]);
}
