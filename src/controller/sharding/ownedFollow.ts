import { namespacedKey } from '../../objects/defaultKey.js';
import type { Store } from '../../operators/store/Store.js';
import type { KubernetesObject } from '../../types.js';

/** The index of the sharder's owned stores: an object's controller owner's uid. */
export const BY_OWNER_UID = 'byOwnerUid';

/** `BY_OWNER_UID`'s indexer: the uid of the controller ownerReference of `apiVersion`. */
export function ownerUidIndex(apiVersion: string) {
  return (object: KubernetesObject): string | undefined =>
    controllerReference(object, apiVersion)?.uid;
}

function controllerReference(object: KubernetesObject, apiVersion: string) {
  return object.metadata?.ownerReferences?.find(
    (ref) => ref.controller === true && ref.apiVersion === apiVersion,
  );
}

/**
 * The primary object that controls `object` (its controller ownerReference of the primary's
 * apiVersion, the same uid), as the primary store holds it; `undefined` when there is none.
 * Looked up as `controller` maps owned objects to keys: same namespace, or cluster-scoped.
 *
 * @example
 * ownerOf(quota, 'example.com/v1alpha1', tenants); // the Tenant, or undefined
 */
export function ownerOf(
  object: KubernetesObject,
  apiVersion: string,
  primaries: Store<KubernetesObject, string>,
): KubernetesObject | undefined {
  const reference = controllerReference(object, apiVersion);
  if (!reference?.name || !reference.uid) return undefined;
  const namespace = object.metadata?.namespace;
  const owner =
    (namespace ? primaries.get(namespacedKey(namespace, reference.name)) : undefined) ??
    primaries.get(reference.name);
  return owner?.metadata?.uid === reference.uid ? owner : undefined;
}

/**
 * The label an owned object must carry: its owner's assignment, when that names a live member.
 * An owner that is unassigned, or assigned to a member that is not live (dead, or a label set by
 * hand), is about to move: its objects are left as they are, and the sharder labels them with
 * the owner's next member before it assigns the owner. `undefined`: leave the object alone.
 *
 * @example
 * ownedTarget(tenant, 'shard.kube-rx.io/tenants', (m) => live.has(m)); // 'pod-1'
 */
export function ownedTarget(
  owner: KubernetesObject,
  assignLabel: string,
  live: (member: string) => boolean,
): string | undefined {
  const value = owner.metadata?.labels?.[assignLabel];
  return value !== undefined && live(value) ? value : undefined;
}
