import { WatchError } from '../../WatchError.js';
import { describeResourcePath, resourcePath } from '../../objects/resourcePath.js';
import type { ResourceRef } from '../../types.js';

/** Where one request of a `ResourceApi` goes. */
export interface TargetRequest {
  /** The `namespace` option. */
  namespace?: string;
  /** The object's `metadata.namespace`, for methods that take an object. */
  objectNamespace?: unknown;
  /** The object's name; absent for a collection (create, list). */
  name?: unknown;
  subresource?: 'status' | 'scale';
  /** Whether a namespaced resource needs a namespace here (every request but a list). */
  needsNamespace: boolean;
}

/**
 * The validated, encoded path of one request, or a WatchError BAD_REQUEST (thrown) that says
 * what is wrong: an invalid ref, name or namespace; a namespace for a cluster-scoped resource
 * (kube-apiserver would answer 404: refused here, where the message can say why); none for a
 * namespaced one where the request needs it; an option that contradicts the object.
 *
 * @example
 * writeTarget(deployments, { namespace: 'shop', name: 'web', needsNamespace: true });
 * // '/apis/apps/v1/namespaces/shop/deployments/web'
 */
export function writeTarget(resource: ResourceRef<unknown>, request: TargetRequest): string {
  const { namespace, objectNamespace, name, subresource, needsNamespace } = request;
  // Checks the ref (group, version, plural) first: its message names the bad segment.
  const collection = resourcePath(resource);
  checkRef(resource, collection);
  if (name !== undefined && typeof name !== 'string')
    throw WatchError.badRequest(collection, `the name must be a string, not ${typeof name}`);
  const fromObject =
    typeof objectNamespace === 'string' && objectNamespace !== '' ? objectNamespace : undefined;
  if (resource.namespaced === false) {
    if (namespace !== undefined) {
      throw WatchError.badRequest(
        collection,
        `${resource.plural} are cluster-scoped: no namespace may be given`,
      );
    }
    // An object's metadata.namespace is cleared by the server for cluster-scoped kinds.
    return resourcePath(resource, { name, subresource });
  }
  if (namespace !== undefined && fromObject !== undefined && namespace !== fromObject) {
    throw WatchError.badRequest(
      describeResourcePath(resource, fromObject),
      "the namespace option differs from the object's metadata.namespace",
    );
  }
  const chosen = fromObject ?? namespace;
  if (chosen === undefined && needsNamespace) {
    throw WatchError.badRequest(
      collection,
      `${resource.plural} are namespaced: give metadata.namespace or the namespace option`,
    );
  }
  return resourcePath(resource, { namespace: chosen, name, subresource });
}

function checkRef(resource: ResourceRef<unknown>, path: string): void {
  const { kind, namespaced } = resource;
  if (kind !== undefined && (typeof kind !== 'string' || !/^[A-Z][A-Za-z0-9]{0,62}$/.test(kind)))
    throw WatchError.badRequest(path, "the ref's kind must be a capitalised name such as CronTab");
  if (namespaced !== undefined && typeof namespaced !== 'boolean')
    throw WatchError.badRequest(path, "the ref's namespaced must be a boolean");
}
