import { isObservable, type Subscription } from 'rxjs';
import type { Action } from '../Action.js';
import type { Reconcile, ReconcileContext } from '../ReconcileQueueConfig.js';
import type { Cancellable, KeyState } from './KeyState.js';

/** Where a run reports how it settled. */
export interface RunOwner {
  finish(run: Run, failed: boolean, error: unknown, value: Action | void): void;
}

/**
 * One run of a key: the context its reconcile gets, and what cancels it. The AbortController is
 * made only when the reconcile reads `signal` (most cost more than the rest of a run).
 *
 * @example
 * new Run(owner, state, 1, now, 0).begin(reconcile);
 */
export class Run implements ReconcileContext, Cancellable {
  private controller: AbortController | undefined;
  private subscription: Subscription | undefined;
  private settled = false;
  /** Its key's gate timed out before it started: it may read a store without its writes. */
  staleRead = false;

  constructor(
    private readonly owner: RunOwner,
    readonly state: KeyState,
    readonly attempt: number,
    readonly startedAt: number,
    readonly queuedMs: number,
  ) {}

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  begin(reconcile: Reconcile): void {
    let result: ReturnType<Reconcile>;
    try {
      result = reconcile(this.state.key, this);
    } catch (error) {
      this.settle(true, error, undefined);
      return;
    }
    if (isObservable(result)) {
      let last: Action | void = undefined;
      const subscription = result.subscribe({
        next: (value) => (last = value),
        error: (error: unknown) => this.settle(true, error, undefined),
        complete: () => this.settle(false, undefined, last),
      });
      if (this.settled) subscription.unsubscribe();
      else this.subscription = subscription;
      return;
    }
    Promise.resolve(result).then(
      (value) => this.settle(false, undefined, value),
      (error: unknown) => this.settle(true, error, undefined),
    );
  }

  /** Aborts the signal and unsubscribes an Observable reconcile; its outcome is dropped. */
  cancel(): void {
    if (this.settled) return;
    this.settled = true;
    // Made now if the reconcile has not read it yet: it may still read it after this.
    this.controller ??= new AbortController();
    this.controller.abort();
    this.subscription?.unsubscribe();
  }

  private settle(failed: boolean, error: unknown, value: Action | void): void {
    if (this.settled) return;
    this.settled = true;
    this.subscription = undefined;
    this.owner.finish(this, failed, error, value);
  }
}
