import { versionOf } from '../../../objects/versionOf.js';
import type { V1ObjectMeta as ObjectMeta } from '@kubernetes/client-node';
import type { KubernetesObject, ResourceRef } from '../../../types.js';
import { cloneObject } from '../cloneObject.js';
import { jsonEqual } from '../jsonEqual.js';
import { objectKey } from '../ObjectStore.js';
import type { Entry, ObjectStore } from '../ObjectStore.js';
import { StatusError, statusBody } from '../statusBody.js';
import type { KubeStatus } from '../statusBody.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './finalizers.js';
import type { PropagationPolicy } from './options.js';

/** What a deletion asks for, whoever asks (a DELETE, `server.delete` or the garbage collector). */
export interface DeleteRequest {
  propagationPolicy?: PropagationPolicy;
  /** Deprecated form of the policy: true is `Orphan`, false `Background`. */
  orphanDependents?: boolean;
  /** Compute the answer, write nothing. */
  dryRun?: boolean;
}

/** The object a deletion answers, and whether it is gone (false: terminating, finalizers left). */
export interface DeleteOutcome {
  object: KubernetesObject;
  deleted: boolean;
}

/**
 * The propagation a kind gets when the request names none: `batch/v1` Jobs orphan their pods
 * (kept for compatibility by kube-apiserver), every other kind deletes dependents in the background.
 */
export function defaultPolicy(ref: ResourceRef<unknown>): 'Orphan' | 'Background' {
  return ref.group === 'batch' && versionOf(ref) === 'v1' && ref.plural === 'jobs'
    ? 'Orphan'
    : 'Background';
}

function terminating(meta: ObjectMeta | undefined): boolean {
  return meta?.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;
}

/**
 * The finalizers the object gets for the request's propagation (store.go
 * deletionFinalizersForGarbageCollection): `orphan` for Orphan, `foregroundDeletion` for
 * Foreground; without a policy the object's own GC finalizer, else the kind's default.
 */
function propagationFinalizers(
  existing: string[],
  request: DeleteRequest,
  fallback: 'Orphan' | 'Background',
): string[] {
  const policy = request.propagationPolicy;
  const own = existing.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
  let orphan: boolean;
  let foreground: boolean;
  if (request.orphanDependents !== undefined) {
    orphan = request.orphanDependents;
    foreground = false;
  } else if (policy !== undefined) {
    orphan = policy === 'Orphan';
    foreground = policy === 'Foreground';
  } else if (own !== undefined) {
    orphan = own === ORPHAN_FINALIZER;
    foreground = own === FOREGROUND_FINALIZER;
  } else {
    orphan = fallback === 'Orphan';
    foreground = false;
  }
  const next = existing.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const same =
    new Set(next).size === new Set(existing).size && next.every((f) => existing.includes(f));
  return same ? existing : next;
}

/** RFC 3339 in whole seconds, as the API server writes timestamps. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * markAsDeleting: `deletionTimestamp` now (kept when already set), grace period 0, and the
 * generation bumped the first time (controllers see the deletion as a change of intent).
 */
function markAsDeleting(meta: ObjectMeta): void {
  if (!terminating(meta) && (meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  if (!terminating(meta)) meta.deletionTimestamp = now() as unknown as Date;
  meta.deletionGracePeriodSeconds = 0;
}

/**
 * The 409 of delete preconditions, checked before anything else as rest.BeforeDelete does (the
 * resource named by its kind, e.g. `Deployment.apps`).
 */
export function checkPreconditions(
  kind: string,
  group: string,
  entry: Entry,
  preconditions: { uid?: string; resourceVersion?: string } | undefined,
): void {
  const meta = entry.obj.metadata ?? {};
  const name = meta.name ?? '';
  const fail = (why: string): never => {
    const qualified = group === '' ? kind : `${kind}.${group}`;
    const details = { name, ...(group !== '' ? { group } : {}), kind };
    throw new StatusError(
      statusBody(
        409,
        `Operation cannot be fulfilled on ${qualified} "${name}": ${why}`,
        'Conflict',
        details as KubeStatus['details'],
      ),
    );
  };
  const uid = preconditions?.uid;
  if (uid !== undefined && uid !== meta.uid) {
    fail(
      `the UID in the precondition (${uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  }
  const rv = preconditions?.resourceVersion;
  if (rv !== undefined && rv !== String(entry.rv)) {
    fail(
      `the ResourceVersion in the precondition (${rv}) does not match the ResourceVersion in record (${entry.rv}). The object might have been modified`,
    );
  }
}

/**
 * Deletes an object as kube-apiserver's registry does: an object left with finalizers (its own,
 * or `orphan` / `foregroundDeletion` for the propagation) gets `deletionTimestamp` and stays (a
 * MODIFIED, none when it was already so); otherwise it is gone (DELETED). The garbage collector
 * sees either and does the rest. Undefined when there is no such object.
 */
export function deleteObject(
  objects: ObjectStore,
  ref: ResourceRef<unknown>,
  namespace: string | undefined,
  name: string,
  request: DeleteRequest,
): DeleteOutcome | undefined {
  const entry = objects.resource(ref).objects.get(objectKey(namespace, name));
  if (entry === undefined) return undefined;
  const obj = structuredClone(entry.obj);
  const meta = (obj.metadata ??= {});
  const finalizers = propagationFinalizers(meta.finalizers ?? [], request, defaultPolicy(ref));
  if (finalizers.length > 0) {
    meta.finalizers = finalizers;
    markAsDeleting(meta);
    if (jsonEqual(obj, entry.obj)) return { object: structuredClone(entry.obj), deleted: false };
    if (request.dryRun) return { object: obj, deleted: false };
    return { object: objects.update(ref, obj), deleted: false };
  }
  if (request.dryRun) return { object: structuredClone(entry.obj), deleted: true };
  return { object: objects.delete(ref, namespace, name)!, deleted: true };
}

/**
 * Whether an update that left `next` deletes the object: it was terminating (grace period 0) with
 * finalizers, and the update removed the last one (store.go shouldDeleteDuringUpdate).
 */
export function finalizedBy(prev: KubernetesObject, next: KubernetesObject): boolean {
  const before = prev.metadata;
  if ((next.metadata?.finalizers ?? []).length > 0) return false;
  if ((before?.finalizers ?? []).length === 0) return false;
  return terminating(before) && (before?.deletionGracePeriodSeconds ?? 0) === 0;
}

/**
 * Writes an update; when it removed the last finalizer of a terminating object, the object is
 * then deleted (watchers see MODIFIED, then DELETED). Returns a copy of the updated object.
 */
export function writeUpdate(
  objects: ObjectStore,
  ref: ResourceRef<unknown>,
  prev: KubernetesObject,
  next: KubernetesObject,
): KubernetesObject {
  return cloneObject(writeUpdateEntry(objects, ref, prev, next).obj);
}

/** `writeUpdate`, answering the stored entry of the update itself (not a copy, to read only). */
export function writeUpdateEntry(
  objects: ObjectStore,
  ref: ResourceRef<unknown>,
  prev: KubernetesObject,
  next: KubernetesObject,
): Entry {
  const updated = objects.updateEntry(ref, next);
  if (finalizedBy(prev, updated.obj)) {
    objects.delete(ref, updated.obj.metadata?.namespace, updated.obj.metadata!.name!);
  }
  return updated;
}
