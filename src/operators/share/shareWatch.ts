import {
  Observable,
  type MonoTypeOperatorFunction,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import { defaultKey } from '../../objects/defaultKey.js';
import { metadataOf } from '../../objects/metadataOf.js';
import { initialEventsEndObject } from '../../objects/endBookmark.js';
import type { AnyWatchEvent, ObjectOfEvent } from '../../objects/AnyWatchEvent.js';
import { emptyWatchState, foldEvent, type WatchState } from '../store/foldEvent.js';
import { SortedMap } from '../store/SortedMap.js';

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
        new SharedUpstream<E>(keyOf, () => {
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

/** An empty state of one source, before its first event. */
const EMPTY_STATE: WatchState<SortedMap<unknown>> = emptyWatchState(SortedMap.empty());

/**
 * One upstream subscription, its subscribers and the state a late subscriber replays: per source
 * of the stream (or for the whole stream, when untagged), what the events folded into.
 */
class SharedUpstream<E extends AnyWatchEvent> {
  // Copied on change, so a dispatch in progress goes on over the subscribers it started with.
  private subscribers: readonly Subscriber<E>[] = [];
  private readonly states = new Map<string | undefined, WatchState<SortedMap<unknown>>>();
  private upstream: Subscription | undefined;
  private closed = false;

  constructor(
    private readonly keyOf: (object: unknown) => string,
    private readonly onEnd: () => void,
  ) {}

  add(subscriber: Subscriber<E>): void {
    this.subscribers = [...this.subscribers, subscriber];
  }

  /** Removes `subscriber`; returns how many are left. */
  remove(subscriber: Subscriber<E>): number {
    this.subscribers = this.subscribers.filter((s) => s !== subscriber);
    return this.subscribers.length;
  }

  subscribeTo(source: Observable<E>): void {
    const upstream = source.subscribe({
      next: (event) => this.next(event),
      error: (error: unknown) => this.end((s) => s.error(error)),
      complete: () => this.end((s) => s.complete()),
    });
    // An upstream that ended while subscribing has nothing left to release.
    if (this.closed) upstream.unsubscribe();
    else this.upstream = upstream;
  }

  unsubscribe(): void {
    this.closed = true;
    this.upstream?.unsubscribe();
  }

  replayTo(subscriber: Subscriber<E>): void {
    for (const [source, state] of this.states) {
      const tag = source === undefined ? {} : { source };
      for (const [, object] of state.objects.entries()) {
        if (subscriber.closed) return;
        const resourceVersion = metadataOf(object)?.resourceVersion;
        subscriber.next({ type: 'ADDED', object, resourceVersion, ...tag } as E);
      }
      if (state.initialEventsEnd !== undefined) {
        const object = initialEventsEndObject(state.initialEventsEnd, state.resourceVersion);
        const { resourceVersion } = state;
        subscriber.next({ type: 'BOOKMARK', object, resourceVersion, ...tag } as E);
      }
    }
  }

  private next(event: E): void {
    if (this.closed) return;
    if (event.type !== 'ERROR') {
      try {
        this.record(event);
      } catch (error) {
        // A throwing key function fails the shared stream, as it would an unshared one.
        this.upstream?.unsubscribe();
        this.end((s) => s.error(error));
        return;
      }
    }
    for (const subscriber of this.subscribers) subscriber.next(event);
  }

  private record(event: E): void {
    const before = this.states.get(event.source) ?? EMPTY_STATE;
    const after = foldEvent(before, event, this.keyOf);
    if (after !== before || !this.states.has(event.source)) this.states.set(event.source, after);
  }

  private end(notify: (subscriber: Subscriber<E>) => void): void {
    this.closed = true;
    // Forget this upstream before notifying, so a subscriber that resubscribes from its
    // error or complete callback (retry, repeat) starts a new one.
    this.onEnd();
    const subscribers = this.subscribers;
    this.subscribers = [];
    for (const subscriber of subscribers) notify(subscriber);
  }
}
