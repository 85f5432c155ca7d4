import type { KubernetesObject } from '../types.js';

/**
 * A ready `transform` that drops `metadata.managedFields` (server-side apply bookkeeping, a
 * third or more of a typical object, which hardly any client reads) from each object as it is
 * decoded, so that neither the queues nor the store ever hold it. client-go users do the same
 * with `SetTransform`.
 *
 * ```
 * server:  --ADDED{metadata:{name,managedFields},spec}--
 * decoded: --ADDED{metadata:{name},spec}--
 * ```
 *
 * @example
 * resilientWatch(kc, pods, { transform: stripManagedFields }).pipe(toStore());
 */
export function stripManagedFields<T extends KubernetesObject>(object: T): T {
  // managedFields is the last field of ObjectMeta on the wire, and deleting the last property
  // of a freshly parsed object keeps its fast shape.
  if (object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}
