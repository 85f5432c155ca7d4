import type { WatchObjectEvent } from '../../types.js';
import { metadataOf } from '../../objects/metadataOf.js';

/** What the consumer was delivered, by key: the resumer's `ObjectMap` (or any `Map`). */
export type DeliveredObjects<T> = Pick<ReadonlyMap<string, T>, 'get' | 'entries'>;

/** A change of a relist and the key it is about, as the consumer's key function made it. */
export type KeyedChange<T> = readonly [key: string, event: WatchObjectEvent<T>];

/**
 * The events that bring a consumer from what it was delivered to a fresh full state (a list,
 * or a watch-list's initial events), keys as the consumer's key function made them:
 * first DELETED, with the last object delivered, for every key the fresh state lacks; then, in
 * the fresh state's order, ADDED for a key not delivered and MODIFIED for one whose
 * resourceVersion changed; nothing for the unchanged.
 *
 * Deletions come first so that a key that is gone and an object that replaced it under another
 * key (a pod re-created under the same name gets a new uid) arrive as DELETED then ADDED: any
 * store downstream, whatever its key, ends with the new object only.
 *
 * Each change comes with its key, so that recording it in `delivered` needs no key made again.
 *
 * @example
 * relistDifference(delivered, new Map([['default/a', a7]]));
 * // [['default/b', DELETED b@4], ['default/a', MODIFIED a@7]]
 */
export function relistDifference<T>(
  delivered: DeliveredObjects<T>,
  fresh: ReadonlyMap<string, T>,
): KeyedChange<T>[] {
  const changes: KeyedChange<T>[] = [];
  for (const [key, object] of delivered.entries()) {
    if (!fresh.has(key)) changes.push([key, objectEvent('DELETED', object)]);
  }
  for (const [key, object] of fresh) {
    const change = freshChange(delivered, key, object);
    if (change) changes.push([key, change]);
  }
  return changes;
}

/**
 * The event that brings a consumer to `object` of a fresh state: ADDED for a key not delivered,
 * MODIFIED when its resourceVersion changed, none when unchanged.
 */
export function freshChange<T>(
  delivered: DeliveredObjects<T>,
  key: string,
  object: T,
): WatchObjectEvent<T> | undefined {
  const previous = delivered.get(key);
  if (previous === undefined) return objectEvent('ADDED', object);
  return sameVersion(previous, object) ? undefined : objectEvent('MODIFIED', object);
}

function sameVersion(previous: unknown, object: unknown): boolean {
  const resourceVersion = metadataOf(object)?.resourceVersion;
  return resourceVersion !== undefined && metadataOf(previous)?.resourceVersion === resourceVersion;
}

function objectEvent<T>(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): WatchObjectEvent<T> {
  return { type, object, resourceVersion: metadataOf(object)?.resourceVersion };
}
