import { filter, map, type OperatorFunction } from 'rxjs';
import type { ObjectOfEvent } from '../objects/AnyWatchEvent.js';

export type { ObjectOfEvent } from '../objects/AnyWatchEvent.js';

/**
 * The object of every ADDED, MODIFIED and DELETED event, in order: a stream of "this object
 * changed" (a DELETED event's object is its last state, so it is emitted too: pair with
 * `ofEventType` to tell deletions apart). BOOKMARK events are dropped, as their object is only a
 * resourceVersion holder. ERROR events are dropped too: put `throwOnWatchError()` first to
 * turn them into an error notification instead (resumed streams carry none).
 *
 * ```
 * source:    --A--M--k--x--D--|   (A: ADDED a; M: MODIFIED b; k: BOOKMARK; x: ERROR; D: DELETED d)
 * objects(): --a--b--------d--|
 * ```
 *
 * @example
 * fromWatch(kc, pods).pipe(objects()).subscribe((pod) => console.log(pod.status?.phase));
 */
export function objects<E extends { type: string }>(): OperatorFunction<E, ObjectOfEvent<E>> {
  return (source) =>
    source.pipe(
      filter((event) => event.type !== 'BOOKMARK' && event.type !== 'ERROR'),
      map((event) => (event as unknown as { object: ObjectOfEvent<E> }).object),
    );
}
