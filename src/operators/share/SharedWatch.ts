import {
  Observable,
  ReplaySubject,
  type Observer,
  type SchedulerLike,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import { LingeringCount } from './LingeringCount.js';
import { SharedUpstream, type UpstreamEnding } from './SharedUpstream.js';
import { StoreReplay, type IndexedStore } from './StoreReplay.js';
import type { StoreIndexes } from '../store/IndexedObjects.js';
import type { StoreSnapshot } from '../store/StoreSnapshot.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import type { WatchObjectEvent } from '../../types.js';

/**
 * One upstream watch shared by the identical requests of `createInformers`, and the stores
 * folded from it, held through one mechanism ({@link LingeringCount}): while anything holds the
 * watch, its upstream subscription (a {@link SharedUpstream}) stays open, and with it the state a
 * late subscriber replays; it is closed `linger` ms after the last holder leaves. Each shared
 * store counts its own subscribers the same way and holds the watch from its first subscriber
 * until `linger` ms after its last.
 *
 * One fold: the watch's own store (default key: {@link StoreReplay}) is what a late events
 * subscriber replays and what a store of the default key emits (with its indexes kept beside
 * the same objects); only a store with another key folds the events again.
 */
export class SharedWatch {
  private readonly replay = new StoreReplay();
  private readonly stores = new Map<string, Observable<unknown>>();
  private readonly count: LingeringCount;
  private upstream: SharedUpstream<AnyWatchEvent> | undefined;
  private closed = false;
  private ending: UpstreamEnding | undefined;

  constructor(
    private readonly source: Observable<AnyWatchEvent>,
    private readonly linger: number,
    private readonly scheduler: SchedulerLike,
    /** Called once, when it closes: the registry forgets it, so the next request opens anew. */
    private readonly onClose: () => void,
  ) {
    this.count = new LingeringCount(linger, scheduler, () => this.close());
  }

  /**
   * The shared events (a late subscriber first gets the replay), holding the upstream while
   * subscribed and `linger` ms after the time `leftAt` gives when it is unsubscribed (now; a
   * shared store gives when its last subscriber left, having lingered itself).
   */
  events(leftAt: () => number = () => this.scheduler.now()): Observable<AnyWatchEvent> {
    return this.held<AnyWatchEvent>(leftAt, (upstream, subscriber) => {
      upstream.replayTo(subscriber);
      upstream.add(subscriber);
      return subscriber;
    });
  }

  /**
   * The shared store of that identity, made the first time: `how` applied to the shared events
   * (a store of another key), or the watch's own store, folded once with the replay, with these
   * indexes kept beside its objects (a store of the default key). The latest
   * store is replayed to each subscriber; `linger` ms after its last subscriber left, or when it
   * errors or completes, the run is dropped and the next subscriber starts a new one.
   */
  store(identity: string, how: StoreFold | StoreIndexes<unknown>): Observable<unknown> {
    let store = this.stores.get(identity);
    if (!store) this.stores.set(identity, (store = this.sharedStore(how)));
    return store;
  }

  /**
   * The snapshots of the watch's own store: the current one at once (unless no event changed
   * anything yet), then each new one, in the order of the shared subscribers, as a `toStore`
   * subscribed in its place would emit them; no replay of the objects one by one.
   */
  private ownStore(leftAt: () => number, indexes: StoreIndexes<unknown>): Observable<unknown> {
    return this.held<unknown>(leftAt, (upstream, subscriber) => {
      const { replay } = this;
      let last: unknown;
      let followed: IndexedStore | undefined;
      const emitIfChanged = () => {
        let snapshot: StoreSnapshot<unknown> | undefined;
        try {
          if (indexes.empty) snapshot = replay.snapshot();
          else snapshot = (followed = replay.follow(followed, indexes))?.snapshot;
        } catch (error) {
          // A throwing indexer fails this store, as in toStore, not the shared watch.
          subscriber.error(error);
          return;
        }
        if (snapshot !== last) subscriber.next((last = snapshot));
      };
      emitIfChanged();
      const observer: Observer<AnyWatchEvent> = {
        next: emitIfChanged,
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      };
      upstream.add(observer);
      return observer;
    });
  }

  /**
   * The changes of the watch's own store as one follower with these indexes sees them (the
   * controller's store of a watched resource: no fold of its own, one index update per change
   * when it has indexes, the very snapshot of {@link SharedWatch.store} when it has none). First
   * the current store (unless no event changed anything yet) with no event, then, for each
   * event as the shared subscribers get it, the store before it and the store the replay
   * recorded with it: what a late subscriber of the events would rebuild from replayed ADDED
   * events, given at once.
   */
  changes(indexes: StoreIndexes<unknown>): Observable<StoreChange> {
    return this.held<StoreChange>(
      () => this.scheduler.now(),
      (upstream, subscriber) => {
        const { replay } = this;
        let followed: IndexedStore | undefined;
        let store: StoreSnapshot<unknown> | undefined;
        // False once an indexer threw: this follower failed, the shared watch goes on.
        const follow = (): boolean => {
          try {
            if (indexes.empty) store = replay.snapshot();
            else store = (followed = replay.follow(followed, indexes))?.snapshot;
            return true;
          } catch (error) {
            subscriber.error(error);
            return false;
          }
        };
        if (follow() && store !== undefined) {
          subscriber.next({ event: undefined, before: undefined, after: store });
        }
        const observer: Observer<AnyWatchEvent> = {
          next: (event) => {
            // An ERROR event is not recorded: nothing changed.
            if (event.type === 'ERROR' || subscriber.closed) return;
            const before = store;
            if (follow() && store !== undefined) subscriber.next({ event, before, after: store });
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => subscriber.complete(),
        };
        upstream.add(observer);
        return observer;
      },
    );
  }

  /**
   * A subscription holding the watch: `join` adds an observer to the open upstream and returns
   * it, to be removed on unsubscribe (`leftAt` then tells when its users left).
   */
  private held<V>(
    leftAt: () => number,
    join: (
      upstream: SharedUpstream<AnyWatchEvent>,
      subscriber: Subscriber<V>,
    ) => Observer<AnyWatchEvent>,
  ): Observable<V> {
    return new Observable<V>((subscriber) => {
      this.hold();
      if (this.ending !== undefined) {
        // The upstream failed while opening: tell this subscriber what the watch was told.
        const ending = this.ending;
        if (ending === 'complete') subscriber.complete();
        else subscriber.error(ending.error);
        return;
      }
      const upstream = this.upstream;
      if (this.closed || !upstream) {
        subscriber.error(new Error('kube-rx: a closed shared watch was subscribed'));
        return;
      }
      const observer = join(upstream, subscriber);
      return () => {
        upstream.remove(observer);
        this.count.release(leftAt());
      };
    });
  }

  private sharedStore(how: StoreFold | StoreIndexes<unknown>): Observable<unknown> {
    let current: StoreRun | undefined;
    return new Observable<unknown>((subscriber) => {
      const fresh = current === undefined;
      const run: StoreRun = current ?? (current = this.storeRun(() => (current = undefined)));
      run.count.hold();
      // Subscribed before the fold connects: every store it emits at once reaches the first one.
      const inner = run.subject.subscribe(subscriber);
      if (fresh) {
        const leftAt = () => run.leftAt;
        const stores =
          typeof how === 'function' ? how(this.events(leftAt)) : this.ownStore(leftAt, how);
        run.connection = stores.subscribe({
          next: (store) => run.subject.next(store),
          error: (error: unknown) => (run.end(), run.subject.error(error)),
          complete: () => (run.end(), run.subject.complete()),
        });
      }
      return () => {
        inner.unsubscribe();
        run.leftAt = this.scheduler.now();
        run.count.release(run.leftAt);
      };
    });
  }

  /** A fold of a shared store from its first subscriber to its reset; `forget` resets it. */
  private storeRun(forget: () => void): StoreRun {
    const run: StoreRun = {
      subject: new ReplaySubject<unknown>(1),
      connection: undefined,
      leftAt: this.scheduler.now(),
      count: new LingeringCount(this.linger, this.scheduler, () => {
        forget();
        run.connection?.unsubscribe();
      }),
      end: () => {
        forget();
        run.count.stop();
      },
    };
    return run;
  }

  private hold(): void {
    this.count.hold();
    if (this.upstream || this.closed) return;
    // Made and subscribed before any holder joins, so on an error the watch closes before a
    // holder that retries looks for one (the upstream tells onEnd before its subscribers).
    const upstream = new SharedUpstream<AnyWatchEvent>(this.replay, (ending) => this.close(ending));
    this.upstream = upstream;
    upstream.subscribeTo(this.source);
  }

  private close(ending?: UpstreamEnding): void {
    if (this.closed) return;
    this.closed = true;
    this.ending = ending;
    this.count.stop();
    this.upstream?.unsubscribe();
    this.onClose();
  }
}

/**
 * One change of a shared watch's own store as a follower sees it ({@link SharedWatch.changes}).
 * Every snapshot is one the store emits or could have (a follower's own indexes aside).
 */
export interface StoreChange<T = unknown> {
  /** The event recorded, or undefined for the store a subscriber starts from. */
  readonly event: WatchObjectEvent<T> | undefined;
  /** The store before the event (undefined when none was made yet: first change). */
  readonly before: StoreSnapshot<T> | undefined;
  /** The store with the event recorded. */
  readonly after: StoreSnapshot<T>;
}

/** How a store of another key than the default folds the shared events. */
export type StoreFold = (events: Observable<AnyWatchEvent>) => Observable<unknown>;

/** One running fold of a shared store. */
interface StoreRun {
  /** Replays the latest store to each subscriber. */
  readonly subject: ReplaySubject<unknown>;
  /** The fold's subscription (holding the shared watch). */
  connection: Subscription | undefined;
  /** When its last subscriber left (scheduler time): the watch lingers from then. */
  leftAt: number;
  readonly count: LingeringCount;
  /** It errored or completed: forgotten, so the next subscriber starts a new fold. */
  end(): void;
}
