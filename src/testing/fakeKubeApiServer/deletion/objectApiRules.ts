import type { KubernetesObject, ResourceRef } from '../../../types.js';
import { FakeKubeApiError, objectKey } from '../ObjectStore.js';
import type { ObjectStore } from '../ObjectStore.js';
import { deleteObject, writeUpdate } from './deleteObject.js';
import type { PropagationPolicy } from './options.js';

/**
 * Options of {@link FakeKubeApiServer.delete}.
 *
 * @example
 * server.delete(deployments, 'default', 'web', { propagationPolicy: 'Orphan' });
 * server.delete(configmaps, 'default', 'stuck', { force: true }); // finalizers or not
 */
export interface FakeDeleteOptions {
  /**
   * How dependents go, as `DeleteOptions.propagationPolicy` (default: the kind's default,
   * `Background` but for batch/v1 Jobs, `Orphan`).
   */
  propagationPolicy?: PropagationPolicy;
  /**
   * Remove the object now even when it has finalizers (no kube-apiserver does this: it is for
   * test setup). Its dependents are still garbage collected.
   */
  force?: boolean;
}

/**
 * `server.delete`: the DELETE rules (finalizers keep the object terminating, propagation
 * finalizers for Orphan / Foreground), or removal at once with `force`.
 */
export function apiDelete(
  objects: ObjectStore,
  resource: ResourceRef<unknown>,
  namespace: string | undefined,
  name: string,
  options: FakeDeleteOptions,
): KubernetesObject | undefined {
  if (options.force) return objects.delete(resource, namespace, name);
  return deleteObject(objects, resource, namespace, name, {
    propagationPolicy: options.propagationPolicy,
  })?.object;
}

/**
 * `server.update`: last write wins, with the deletion rules that make a terminating object one:
 * its `deletionTimestamp` and grace period stay, no finalizer can be added (422), and removing
 * the last finalizer deletes it. Setting `deletionTimestamp` on a live object is allowed (a test
 * stands in for a kubelet's graceful deletion), unlike over HTTP.
 */
export function apiUpdate(
  objects: ObjectStore,
  resource: ResourceRef<unknown>,
  obj: KubernetesObject,
): KubernetesObject {
  const prev = objects
    .resource(resource)
    .objects.get(objectKey(obj.metadata?.namespace, obj.metadata?.name ?? ''));
  if (prev === undefined) return objects.update(resource, obj);
  const before = prev.obj.metadata ?? {};
  if (before.deletionTimestamp == null) return writeUpdate(objects, resource, prev.obj, obj);
  const next = structuredClone(obj);
  const meta = (next.metadata ??= {});
  meta.deletionTimestamp ??= before.deletionTimestamp;
  meta.deletionGracePeriodSeconds ??= before.deletionGracePeriodSeconds;
  const old = new Set(before.finalizers ?? []);
  const added = (meta.finalizers ?? []).filter((f) => !old.has(f));
  if (added.length > 0) {
    throw new FakeKubeApiError(
      `${prev.obj.kind ?? resource.plural} "${meta.name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      422,
      'Invalid',
    );
  }
  return writeUpdate(objects, resource, prev.obj, next);
}
