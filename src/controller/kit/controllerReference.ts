import type { V1OwnerReference } from '@kubernetes/client-node';
import { assertObjectArgument } from '../../objects/argumentChecks.js';
import { apiVersionOf } from '../../objects/resources.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';

/**
 * The ownerReference that makes `owner` the controller of an object (controller-runtime's
 * `SetControllerReference`): `controller: true`, which `controller()`'s `owns` follows, and
 * `blockOwnerDeletion: true`, which the garbage collector honours in a foreground deletion.
 * The owner needs its name and uid (an object read from the server has them); its apiVersion and
 * kind come from the object, or from `resource` for objects that lack them (a metadata-only
 * watch's objects say `meta.k8s.io/v1 PartialObjectMetadata`). Throws a TypeError otherwise.
 * An owner in a namespace can only own objects of the same namespace (the garbage collector
 * ignores a reference across namespaces); a cluster-scoped owner can own anything.
 *
 * @example
 * await ctx.api(configmaps).apply({
 *   apiVersion: 'v1', kind: 'ConfigMap',
 *   metadata: { name: 'web-config', namespace: 'shop', ownerReferences: [controllerReference(site)] },
 *   data: { index: site.spec.index },
 * }, { fieldManager: 'site-operator' });
 */
export function controllerReference(
  owner: KubernetesObject,
  resource?: ResourceRef<unknown>,
): V1OwnerReference {
  if (typeof owner !== 'object' || owner === null)
    throw new TypeError('controllerReference: the owner must be an object');
  assertObjectArgument('controllerReference', 'resource', resource, true);
  assertObjectArgument('controllerReference', 'owner.metadata', owner.metadata, true);
  const partial = owner.kind === 'PartialObjectMetadata' || owner.kind === undefined;
  const apiVersion =
    partial || !owner.apiVersion ? resource && apiVersionOf(resource) : owner.apiVersion;
  const kind = partial ? resource?.kind : owner.kind;
  const { name, uid } = owner.metadata ?? {};
  const missing = [
    !isText(apiVersion) && 'apiVersion',
    !isText(kind) && 'kind',
    !isText(name) && 'metadata.name',
    !isText(uid) && 'metadata.uid',
  ].filter(Boolean);
  if (missing.length > 0)
    throw new TypeError(
      `controllerReference: the owner has no ${missing.join(', ')} (pass an object read from the server${partial ? ', and its resource ref with a kind' : ''})`,
    );
  return {
    apiVersion: apiVersion!,
    kind: kind!,
    name: name!,
    uid: uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A field of a reference: a non-empty string (any other value is reported missing). */
function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
