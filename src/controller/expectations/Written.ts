import type { KubernetesObject } from '../../types.js';

/**
 * One object a run wrote, as the write's answer describes it, and what its store must show
 * before the key runs again:
 * - `written` (create, replace, patch, apply, status and scale writes): the object at the
 *   resourceVersion the write returned;
 * - `deleting` (a delete answered with the object: finalizers or a grace period keep it): that
 *   version (marked for deletion), or the object gone;
 * - `deleted` (a delete answered with a Status): the object gone.
 *
 * @example
 * const child: Written = { kind: 'written', objectKey: 'shop/web-1', resourceVersion: '812', uid: 'u1' };
 */
export interface Written {
  /** What the store must show (see above). */
  kind: 'written' | 'deleting' | 'deleted';
  /** The object's key in its store (`namespace/name`, or `name` when cluster-scoped). */
  objectKey: string;
  /** The resourceVersion the write returned (none for `deleted`). */
  resourceVersion?: string | undefined;
  /** The uid the write returned, when it did: tells an older incarnation of the name apart. */
  uid?: string | undefined;
}

/**
 * Whether the store already shows the write when it returns: it holds the object at exactly
 * the version the write returned (its event came first), or, for a delete, no longer holds it
 * (or holds another incarnation of the name).
 *
 * @example
 * shownBy(written, store.get(written.objectKey)); // true: no wait at all
 */
export function shownBy(written: Written, current: KubernetesObject | undefined): boolean {
  if (written.kind !== 'written' && (current === undefined || otherUid(written, current))) {
    return true;
  }
  if (written.kind === 'deleted' || current === undefined) return false;
  return current.metadata?.resourceVersion === written.resourceVersion;
}

/**
 * Whether an event of the object that arrived after the write returned shows it.
 * resourceVersions are opaque (DESIGN: equality for one object's event, never ordering), so
 * any event of the object that comes after the write returned counts as the write's or a later
 * one, with one exception the uid tells: the DELETED of an older incarnation of the name. For a
 * `deleted` write only a deletion (or the name created again) counts.
 *
 * The one event that can come late and be older is one the server sent just before the write
 * (in flight when the write returned): the next run then reads the object as it was just before
 * its own write, a state it could have read anyway; what it repeats is a write it already made
 * (an apply or patch again, a create answered AlreadyExists, a replace answered Conflict). A
 * created object has no such event (it had no earlier version), so a created child is never
 * missed and never created twice.
 *
 * @example
 * seenIn(written, event.object, event.type === 'DELETED'); // true for the write's own event
 */
export function seenIn(written: Written, object: KubernetesObject, deleted: boolean): boolean {
  if (written.kind === 'deleted')
    return deleted ? !otherUid(written, object) : otherUid(written, object);
  return !(deleted && otherUid(written, object));
}

/** The object is another incarnation of the name than the one written (when the uid is known). */
function otherUid(written: Written, object: KubernetesObject): boolean {
  const uid = object.metadata?.uid;
  return written.uid !== undefined && uid !== undefined && uid !== written.uid;
}
