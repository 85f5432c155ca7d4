import { hasInitialEventsEndAnnotation } from '../../objects/endBookmark.js';
import { resourceVersionOf } from '../../objects/resourceVersionOf.js';
import { type AnyWatchEvent } from '../../objects/AnyWatchEvent.js';

/**
 * Objects by key, as the fold updates them: persistent maps (`SortedMap`, `IndexedObjects`),
 * whose `set` and `delete` return a new map and leave the old one valid. `Self` is the map type
 * itself, so a fold over a `SortedMap` gives back a `SortedMap`.
 */
export interface ObjectsByKey<T, Self> {
  readonly size: number;
  get(key: string): T | undefined;
  /** The map with `key` set to `object`. */
  set(key: string, object: T): Self;
  /** The map without `key`. */
  delete(key: string): Self;
  /** Every entry, in key order. */
  entries(): Iterable<[string, T]>;
}

/** What the events of one watch fold into: its objects, its version, whether it is synced. */
export interface WatchState<O> {
  readonly objects: O;
  /** The resourceVersion of the last event applied (bookmarks included); none before any. */
  readonly resourceVersion: string | undefined;
  /**
   * The object of the first initial-events-end BOOKMARK applied, once one has: the state then
   * matches the server (toStore's `synced`), and shareWatch replays a bookmark shaped like it.
   */
  readonly initialEventsEnd: unknown;
}

/**
 * The one fold of a watch event into objects by key, used by everything that keeps state:
 * ADDED and MODIFIED set the object under its key, DELETED removes the key, BOOKMARK and ERROR
 * change nothing. `toStore` and `shareWatch` apply events through it, with the key their user
 * gave; the resumer's record of what it delivered (`resume/ObjectMap`, which skips repeats on
 * the way) is kept the same way with the same key, so all of them agree on what an object is.
 *
 * @example
 * objects = foldObjects(objects, { type: 'DELETED', object: pod }, defaultKey);
 */
export function foldObjects<T, O extends ObjectsByKey<T, O>>(
  objects: O,
  event: AnyWatchEvent,
  keyOf: (object: T) => string,
): O {
  switch (event.type) {
    case 'ADDED':
    case 'MODIFIED':
      return objects.set(keyOf(event.object), event.object);
    case 'DELETED':
      return objects.delete(keyOf(event.object));
    default:
      return objects;
  }
}

/**
 * A watch's state after `event` ({@link foldObjects} for the objects; the resourceVersion moves
 * with every event that has one; the first initial-events-end BOOKMARK is kept), or `state`
 * itself when nothing changed: ERROR events never change it. For persistent maps: "nothing
 * changed" is told by identity, which an in-place map always keeps.
 *
 * @example
 * let state = emptyWatchState(SortedMap.empty<V1Pod>());
 * state = foldEvent(state, added(pod('a', '3')), defaultKey); // objects {a}, resourceVersion '3'
 */
export function foldEvent<T, O extends ObjectsByKey<T, O>>(
  state: WatchState<O>,
  event: AnyWatchEvent,
  keyOf: (object: T) => string,
): WatchState<O> {
  if (event.type === 'ERROR') return state;
  const objects = foldObjects(state.objects, event, keyOf);
  const resourceVersion = foldResourceVersion(state.resourceVersion, event);
  const initialEventsEnd = foldInitialEventsEnd(state.initialEventsEnd, event);
  if (
    objects === state.objects &&
    resourceVersion === state.resourceVersion &&
    initialEventsEnd === state.initialEventsEnd
  ) {
    return state;
  }
  return { objects, resourceVersion, initialEventsEnd };
}

/** A watch event with an object: any but ERROR. */
type ObjectEvent = Exclude<AnyWatchEvent, { type: 'ERROR' }>;

/** A watch state's resourceVersion after `event` (not ERROR): the event's, if it has one. */
export function foldResourceVersion(
  resourceVersion: string | undefined,
  event: ObjectEvent,
): string | undefined {
  return resourceVersionOf(event) ?? resourceVersion;
}

/** A watch state's initial-events-end object after `event`: the first such BOOKMARK's. */
export function foldInitialEventsEnd(initialEventsEnd: unknown, event: ObjectEvent): unknown {
  return initialEventsEnd === undefined &&
    event.type === 'BOOKMARK' &&
    hasInitialEventsEndAnnotation(event.object)
    ? event.object
    : initialEventsEnd;
}

/** A state with `objects` and nothing applied yet. */
export function emptyWatchState<O>(objects: O): WatchState<O> {
  return { objects, resourceVersion: undefined, initialEventsEnd: undefined };
}
