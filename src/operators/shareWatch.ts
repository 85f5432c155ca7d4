import {
  Observable,
  type MonoTypeOperatorFunction,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import { SortedMap } from './internal/SortedMap.js';
import {
  defaultKey,
  hasInitialEventsEndAnnotation,
  initialEventsEndObject,
  metadataOf,
  resourceVersionOf,
  type AnyObjectEvent,
  type AnyWatchEvent,
} from './internal/events.js';
import type { ObjectOfEvent } from './objects.js';

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
 * Shares one upstream subscription (one connection) among many subscribers, and lets a late
 * subscriber catch up as if it had connected itself: it first gets an ADDED event for every
 * object currently known (in key order) and, once the upstream has passed its initial-events-end
 * BOOKMARK, that bookmark at the last resourceVersion seen; then the live events.
 *
 * - The upstream is subscribed by the first subscriber and released when the last one leaves;
 *   the next subscriber starts it again, with fresh state (reference counting, as `share()`).
 * - An error or completion goes to the current subscribers and ends the connection; the next
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
 * pods$.pipe(ofEventType('DELETED')).subscribe(logDeletion); // same connection
 */
export function shareWatch<E extends AnyWatchEvent>(
  config: ShareWatchConfig<ObjectOfEvent<E>> = {},
): MonoTypeOperatorFunction<E> {
  const { key = defaultKey } = config;
  const keyOf = key as (object: unknown) => string;
  return (source) => {
    let current: Connection<E> | undefined;
    return new Observable<E>((subscriber) => {
      const late = current !== undefined;
      const connection: Connection<E> =
        current ??
        new Connection<E>(keyOf, () => {
          if (current === connection) current = undefined;
        });
      if (late) {
        connection.replayTo(subscriber);
        connection.add(subscriber);
      } else {
        current = connection;
        connection.add(subscriber);
        connection.connect(source);
      }
      return () => {
        // A connection that ended has been replaced already: leave the new one alone.
        if (connection.remove(subscriber) === 0 && current === connection) {
          current = undefined;
          connection.disconnect();
        }
      };
    });
  };
}

/** What one source of the stream (or the whole stream, when untagged) has delivered so far. */
interface SourceState {
  objects: SortedMap<unknown>;
  resourceVersion: string | undefined;
  /** The initial-events-end bookmark's object, once it has passed. */
  initialEventsEnd: unknown;
}

/** One upstream subscription, its subscribers and the state a late subscriber replays. */
class Connection<E extends AnyWatchEvent> {
  // Copied on change, so a dispatch in progress goes on over the subscribers it started with.
  private subscribers: readonly Subscriber<E>[] = [];
  private readonly states = new Map<string | undefined, SourceState>();
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

  connect(source: Observable<E>): void {
    const upstream = source.subscribe({
      next: (event) => this.next(event),
      error: (error: unknown) => this.end((s) => s.error(error)),
      complete: () => this.end((s) => s.complete()),
    });
    // An upstream that ended while subscribing has nothing left to release.
    if (this.closed) upstream.unsubscribe();
    else this.upstream = upstream;
  }

  disconnect(): void {
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
        this.record(event as AnyObjectEvent);
      } catch (error) {
        // A throwing key function fails the shared stream, as it would an unshared one.
        this.upstream?.unsubscribe();
        this.end((s) => s.error(error));
        return;
      }
    }
    for (const subscriber of this.subscribers) subscriber.next(event);
  }

  private record(event: AnyObjectEvent): void {
    let state = this.states.get(event.source);
    if (!state) {
      state = {
        objects: SortedMap.empty(),
        resourceVersion: undefined,
        initialEventsEnd: undefined,
      };
      this.states.set(event.source, state);
    }
    state.resourceVersion = resourceVersionOf(event) ?? state.resourceVersion;
    if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      state.objects = state.objects.set(this.keyOf(event.object), event.object);
    } else if (event.type === 'DELETED') {
      state.objects = state.objects.delete(this.keyOf(event.object));
    } else if (hasInitialEventsEndAnnotation(event.object)) {
      state.initialEventsEnd = event.object;
    }
  }

  private end(notify: (subscriber: Subscriber<E>) => void): void {
    this.closed = true;
    // Forget this connection before notifying, so a subscriber that resubscribes from its
    // error or complete callback (retry, repeat) starts a new one.
    this.onEnd();
    const subscribers = this.subscribers;
    this.subscribers = [];
    for (const subscriber of subscribers) notify(subscriber);
  }
}
