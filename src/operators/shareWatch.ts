import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { defaultKey } from '../objects/defaultKey.js';
import type { AnyWatchEvent, ObjectOfEvent } from '../objects/AnyWatchEvent.js';
import { FoldedReplay } from './share/FoldedReplay.js';
import { SharedUpstream } from './share/SharedUpstream.js';

/**
 * Configuration of {@link shareWatch}.
 *
 * @example
 * shareWatch({ key: (node: V1Node) => node.metadata!.name! });
 */
export interface ShareWatchConfig<T = unknown> {
  /** The key of an object (default `namespace/name`, or `name` for cluster-scoped objects). */
  key?: (object: T) => string;
}

/**
 * Shares one upstream subscription (one watch) among many subscribers, and lets a late
 * subscriber catch up as if it had connected itself: it first gets an ADDED event for every
 * object currently known (in key order) and, once the upstream has passed its initial-events-end
 * BOOKMARK, that bookmark at the last resourceVersion seen; then the live events.
 *
 * - The upstream is subscribed by the first subscriber and released when the last one leaves;
 *   the next subscriber starts it again, with fresh state (reference counting, as `share()`).
 * - An error or completion goes to the current subscribers and ends the upstream; the next
 *   subscriber starts a new one (so `retry()` after it reconnects).
 * - ERROR events are relayed live and never replayed.
 * - On a merged stream (events tagged by `mergeWatches`) each source keeps its own objects and
 *   bookmark; replayed events carry their `source`.
 *
 * ```
 * source:  --a--e--b-----m--|   (e: initial-events-end BOOKMARK; m: MODIFIED a)
 * 1st:     --a--e--b-----m--|
 * 2nd:              ^ (subscribes late)
 *                   (ABE)m--|  (A, B: ADDED a, b; E: the end BOOKMARK at b's version)
 * ```
 *
 * @example
 * const pods$ = fromWatch(kc, pods).pipe(resumeFromResourceVersion(), shareWatch());
 * pods$.pipe(toStore()).subscribe(renderTable);
 * pods$.pipe(ofEventType('DELETED')).subscribe(logDeletion); // same upstream
 */
export function shareWatch<E extends AnyWatchEvent>(
  config: ShareWatchConfig<ObjectOfEvent<E>> = {},
): MonoTypeOperatorFunction<E> {
  const { key = defaultKey } = config;
  const keyOf = key as (object: unknown) => string;
  return (source) => {
    let current: SharedUpstream<E> | undefined;
    return new Observable<E>((subscriber) => {
      const late = current !== undefined;
      const upstream: SharedUpstream<E> =
        current ??
        new SharedUpstream<E>(new FoldedReplay<E>(keyOf), () => {
          if (current === upstream) current = undefined;
        });
      if (late) {
        upstream.replayTo(subscriber);
        upstream.add(subscriber);
      } else {
        current = upstream;
        upstream.add(subscriber);
        upstream.subscribeTo(source);
      }
      return () => {
        // An upstream that ended has been replaced already: leave the new one alone.
        if (upstream.remove(subscriber) === 0 && current === upstream) {
          current = undefined;
          upstream.unsubscribe();
        }
      };
    });
  };
}
