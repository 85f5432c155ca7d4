import type { Observable, Observer, Subscriber, Subscription } from 'rxjs';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';

/**
 * What a shared watch keeps for its late subscribers: `record` sees every event before the
 * subscribers do, `replayTo` brings a late one up to date (ADDED for every object known, then
 * the initial-events-end BOOKMARK once there was one). `shareWatch` keeps a fold of its own; a
 * shared watch of `createInformers` replays from its store, so the objects are folded once.
 */
export interface ReplayState<E> {
  /** Applies `event`; a throw (a key function's) fails the shared stream. */
  record(event: E): void;
  replayTo(subscriber: Subscriber<E>): void;
}

/** How an upstream ended on its own: its error, or completion. */
export type UpstreamEnding = { error: unknown } | 'complete';

/**
 * One upstream subscription and its subscribers, with the state a late subscriber replays:
 * the machinery of `shareWatch` and of `createInformers`' shared watches. Every event is
 * recorded (ERROR events aside), then dispatched to the subscribers in the order they came.
 *
 * @example
 * const upstream = new SharedUpstream(replay, () => forget());
 * upstream.add(first);
 * upstream.subscribeTo(source$);
 * upstream.replayTo(late); // ADDED for every object known, then the end bookmark
 * upstream.add(late);
 */
export class SharedUpstream<E extends AnyWatchEvent> {
  // Copied on change, so a dispatch in progress goes on over the subscribers it started with.
  private subscribers: readonly Observer<E>[] = [];
  private upstream: Subscription | undefined;
  private closed = false;

  constructor(
    private readonly replay: ReplayState<E>,
    /** Called once when the upstream ends on its own, before any subscriber is told. */
    private readonly onEnd: (ending: UpstreamEnding) => void,
  ) {}

  add(subscriber: Observer<E>): void {
    this.subscribers = [...this.subscribers, subscriber];
  }

  /** Removes `subscriber`; returns how many are left. */
  remove(subscriber: Observer<E>): number {
    this.subscribers = this.subscribers.filter((s) => s !== subscriber);
    return this.subscribers.length;
  }

  subscribeTo(source: Observable<E>): void {
    const upstream = source.subscribe({
      next: (event) => this.next(event),
      error: (error: unknown) => this.end({ error }),
      complete: () => this.end('complete'),
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
    this.replay.replayTo(subscriber);
  }

  private next(event: E): void {
    if (this.closed) return;
    if (event.type !== 'ERROR') {
      try {
        this.replay.record(event);
      } catch (error) {
        // A throwing key function fails the shared stream, as it would an unshared one.
        this.upstream?.unsubscribe();
        this.end({ error });
        return;
      }
    }
    for (const subscriber of this.subscribers) subscriber.next(event);
  }

  private end(ending: UpstreamEnding): void {
    this.closed = true;
    // Forget this upstream before notifying, so a subscriber that resubscribes from its
    // error or complete callback (retry, repeat) starts a new one.
    this.onEnd(ending);
    const subscribers = this.subscribers;
    this.subscribers = [];
    for (const subscriber of subscribers) {
      if (ending === 'complete') subscriber.complete();
      else subscriber.error(ending.error);
    }
  }
}
