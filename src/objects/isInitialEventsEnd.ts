import type { WatchEvent } from '../types.js';
import { hasInitialEventsEndAnnotation } from './endBookmark.js';

/**
 * Whether `event` is the BOOKMARK that ends the initial events: the one whose object carries the
 * annotation `k8s.io/initial-events-end: "true"`. Before it a consumer has seen part of the
 * state; from it on, the state matches the server at that bookmark's resourceVersion.
 *
 * Not a type guard on purpose: `false` must not narrow an event to ERROR.
 *
 * ```
 * source:                     --a--b--e--m--
 *                             (e: BOOKMARK annotated k8s.io/initial-events-end: "true")
 * filter(isInitialEventsEnd): --------e-----
 * ```
 *
 * @example
 * const synced$ = resumed$.pipe(first(isInitialEventsEnd), map(() => true));
 */
export function isInitialEventsEnd(event: WatchEvent<unknown>): boolean {
  return event.type === 'BOOKMARK' && hasInitialEventsEndAnnotation(event.object);
}
