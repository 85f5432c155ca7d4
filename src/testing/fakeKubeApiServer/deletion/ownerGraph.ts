import type { V1OwnerReference } from '@kubernetes/client-node';
import { versionOf } from '../../../objects/versionOf.js';
import type { KubernetesObject, ResourceRef } from '../../../types.js';
import { objectKey } from '../ObjectStore.js';
import type { Entry, ObjectStore } from '../ObjectStore.js';
import type { ResourceTypes } from '../ResourceTypes.js';
import { FOREGROUND_FINALIZER } from './finalizers.js';

/** Where an object lives: its resource, namespace and name. */
export interface Place {
  ref: ResourceRef<unknown>;
  namespace?: string;
  name: string;
}

/** How the garbage collector sees one ownerReference of a dependent. */
export type OwnerState =
  /** The owner exists (same uid) and is not deleting its dependents. */
  | { kind: 'solid'; place: Place; entry: Entry }
  /** The owner exists and is being deleted in the foreground: its dependents go first. */
  | { kind: 'waiting'; place: Place; entry: Entry }
  /** No object of that kind and name with that uid where the dependent can have its owner. */
  | { kind: 'dangling' }
  /**
   * The reference cannot be resolved: a kind the server does not know, or a namespaced owner of a
   * cluster-scoped object. kube-apiserver's GC never collects on such a reference (it retries or
   * reports an event), so neither does this one.
   */
  | { kind: 'unresolvable' };

/** A stable id for an object's place (resource + namespace + name). */
export function placeId(place: Place): string {
  const { group, plural } = place.ref;
  return `${group}/${versionOf(place.ref)}/${plural}\u0000${objectKey(place.namespace, place.name)}`;
}

/** The entry at `place`, if any. */
export function entryAt(objects: ObjectStore, place: Place): Entry | undefined {
  return objects.resource(place.ref).objects.get(objectKey(place.namespace, place.name));
}

/** The ownerReferences of an object (none when absent or malformed). */
export function ownerRefs(obj: KubernetesObject | undefined): V1OwnerReference[] {
  const refs = obj?.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r) => typeof r?.uid === 'string') : [];
}

/** Whether an object is terminating with `finalizer` still on it. */
export function deletingWith(obj: KubernetesObject | undefined, finalizer: string): boolean {
  const meta = obj?.metadata;
  return (
    meta?.deletionTimestamp !== undefined &&
    meta.deletionTimestamp !== null &&
    (meta.finalizers ?? []).includes(finalizer)
  );
}

/**
 * Resolves an ownerReference of the dependent at `dependent`, as the GC's isDangling does: the
 * owner's kind through the served types (its apiVersion's group, the same version preferred); a
 * namespaced owner is looked up in the dependent's namespace (so it cannot own objects elsewhere),
 * a cluster-scoped one without namespace; it counts only with the referenced uid.
 */
export function resolveOwner(
  objects: ObjectStore,
  types: ResourceTypes,
  ref: V1OwnerReference,
  dependent: Place,
): OwnerState {
  const slash = ref.apiVersion?.lastIndexOf('/') ?? -1;
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const version = ref.apiVersion?.slice(slash + 1);
  const candidates = types.all().filter((t) => t.group === group && t.kind === ref.kind);
  const type = candidates.find((t) => t.version === version) ?? candidates[0];
  if (type === undefined) return { kind: 'unresolvable' };
  if (type.namespaced && dependent.namespace === undefined) return { kind: 'unresolvable' };
  const place: Place = {
    ref: { group: type.group, version: type.version, plural: type.plural },
    namespace: type.namespaced ? dependent.namespace : undefined,
    name: ref.name,
  };
  const entry = entryAt(objects, place);
  if (entry === undefined || entry.obj.metadata?.uid !== ref.uid) return { kind: 'dangling' };
  if (deletingWith(entry.obj, FOREGROUND_FINALIZER)) return { kind: 'waiting', place, entry };
  return { kind: 'solid', place, entry };
}
