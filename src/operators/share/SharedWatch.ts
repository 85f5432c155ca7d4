import { Observable, ReplaySubject, type SchedulerLike, type Subscription } from 'rxjs';
import { shareWatch } from './shareWatch.js';
import { LingeringCount } from './LingeringCount.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';

/** How a shared watch ended on its own: its error, or completion. */
type Ending = { error: unknown } | 'complete';

/**
 * One upstream watch shared by the identical requests of `createInformers`, and the stores
 * folded from it, held through one mechanism ({@link LingeringCount}): while anything holds the
 * watch, one internal subscription (the keeper) keeps the `shareWatch` connection, and with it
 * the state a late subscriber replays, alive; it is dropped `linger` ms after the last holder
 * leaves, which closes the upstream. Each shared store counts its own subscribers the same way
 * and holds the watch from its first subscriber until `linger` ms after its last.
 */
export class SharedWatch {
  private readonly shared$: Observable<AnyWatchEvent>;
  private readonly stores = new Map<string, Observable<unknown>>();
  private readonly count: LingeringCount;
  private keeper: Subscription | undefined;
  private closed = false;
  private ending: Ending | undefined;

  constructor(
    upstream: Observable<AnyWatchEvent>,
    private readonly linger: number,
    private readonly scheduler: SchedulerLike,
    /** Called once, when it closes: the registry forgets it, so the next request opens anew. */
    private readonly onClose: () => void,
  ) {
    this.shared$ = upstream.pipe(shareWatch());
    this.count = new LingeringCount(linger, scheduler, () => this.close());
  }

  /**
   * The shared events, holding the upstream while subscribed and `linger` ms after the time
   * `leftAt` gives when it is unsubscribed (now; a shared store gives when its last subscriber
   * left, having lingered itself).
   */
  events(leftAt: () => number = () => this.scheduler.now()): Observable<AnyWatchEvent> {
    return new Observable<AnyWatchEvent>((subscriber) => {
      this.hold();
      if (this.ending !== undefined) {
        // The upstream failed while opening: tell this subscriber what the keeper was told.
        const ending = this.ending;
        if (ending === 'complete') subscriber.complete();
        else subscriber.error(ending.error);
        return;
      }
      if (this.closed) {
        subscriber.error(new Error('kube-rx: a closed shared watch was subscribed'));
        return;
      }
      const subscription = this.shared$.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        this.count.release(leftAt());
      };
    });
  }

  /**
   * The shared store of that identity (`fold` applied to the shared events), made the first
   * time: the latest store is replayed to each subscriber; `linger` ms after its last
   * subscriber left, or when it errors or completes, the fold is dropped and the next
   * subscriber starts a new one.
   */
  store(
    identity: string,
    fold: (events: Observable<AnyWatchEvent>) => Observable<unknown>,
  ): Observable<unknown> {
    let store = this.stores.get(identity);
    if (!store) this.stores.set(identity, (store = this.sharedStore(fold)));
    return store;
  }

  private sharedStore(
    fold: (events: Observable<AnyWatchEvent>) => Observable<unknown>,
  ): Observable<unknown> {
    let current: StoreRun | undefined;
    return new Observable<unknown>((subscriber) => {
      const fresh = current === undefined;
      const run: StoreRun = current ?? (current = this.storeRun(() => (current = undefined)));
      run.count.hold();
      // Subscribed before the fold connects: every store it emits at once reaches the first one.
      const inner = run.subject.subscribe(subscriber);
      if (fresh) {
        run.connection = fold(this.events(() => run.leftAt)).subscribe({
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
    if (this.keeper || this.closed) return;
    // Subscribed before any holder's own subscription, so on an error the keeper hears first
    // and closes this watch before a holder that retries looks for one.
    const keeper = this.shared$.subscribe({
      error: (error: unknown) => this.close({ error }),
      complete: () => this.close('complete'),
    });
    if (this.closed) keeper.unsubscribe();
    else this.keeper = keeper;
  }

  private close(ending?: Ending): void {
    if (this.closed) return;
    this.closed = true;
    this.ending = ending;
    this.count.stop();
    this.keeper?.unsubscribe();
    this.onClose();
  }
}

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
