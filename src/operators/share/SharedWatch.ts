import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { shareWatch } from './shareWatch.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';

/** How a shared watch ended on its own: its error, or completion. */
type Ending = { error: unknown } | 'complete';

/**
 * One upstream watch shared by the identical requests of `createInformers`, and the stores
 * folded from it. While anything holds it, one internal subscription (the keeper) keeps the
 * `shareWatch` connection, and with it the state a late subscriber replays, alive; the keeper is
 * dropped `linger` ms after the last holder leaves, which closes the upstream.
 */
export class SharedWatch {
  private readonly shared$: Observable<AnyWatchEvent>;
  private readonly stores = new Map<string, Observable<unknown>>();
  private keeper: Subscription | undefined;
  private lingering: Subscription | undefined;
  private holders = 0;
  /** When the last holder to leave asked it to stay until (scheduler time). */
  private lingerUntil = -Infinity;
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
  }

  /**
   * The shared events, holding the upstream while subscribed and `linger` ms after.
   * `lingerOnRelease: false` is for a shared store, which has lingered on its own already.
   */
  events(lingerOnRelease = true): Observable<AnyWatchEvent> {
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
        this.release(lingerOnRelease);
      };
    });
  }

  /** The shared store of that identity, made by `create` the first time. */
  store(identity: string, create: () => Observable<unknown>): Observable<unknown> {
    let store = this.stores.get(identity);
    if (!store) this.stores.set(identity, (store = create()));
    return store;
  }

  private hold(): void {
    this.holders++;
    this.lingering?.unsubscribe();
    this.lingering = undefined;
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

  private release(lingerOnRelease: boolean): void {
    const now = this.scheduler.now();
    if (lingerOnRelease) this.lingerUntil = Math.max(this.lingerUntil, now + this.linger);
    if (--this.holders > 0 || this.closed) return;
    // Closed `linger` ms after the last subscriber left, wherever the holder that leaves last
    // (a shared store that has lingered on its own) left.
    const wait = this.lingerUntil - now;
    if (wait <= 0) this.close();
    else this.lingering = this.scheduler.schedule(() => this.close(), wait);
  }

  private close(ending?: Ending): void {
    if (this.closed) return;
    this.closed = true;
    this.ending = ending;
    this.lingering?.unsubscribe();
    this.keeper?.unsubscribe();
    this.onClose();
  }
}
