import type { Observable, SchedulerLike } from 'rxjs';
import type { Action } from './Action.js';
import type { QueueState } from './ReconcileReport.js';

/**
 * What a reconcile gets besides its key. `signal` aborts when the queue is unsubscribed, or when
 * a graceful stop's `drainTimeoutMs` runs out; `attempt` is 1, or n while the key's backoff is at
 * its n-th attempt.
 *
 * @example
 * reconcileQueue(async (key, { signal, attempt }) => {
 *   await fetch(`https://example.test/${key}`, { signal });
 * });
 */
export interface ReconcileContext {
  /** Aborts when the queue is unsubscribed, or a graceful stop's drain time runs out. */
  readonly signal: AbortSignal;
  /** 1, or n while the key's backoff is at its n-th attempt. */
  readonly attempt: number;
}

/**
 * The reconcile function of `reconcileQueue`: a Promise or an Observable of what to do next (its
 * last value counts). Throwing, rejecting and erroring all mean "failed: retry with backoff".
 *
 * @example
 * const reconcile: Reconcile = (key) => of(Action.requeueAfter(60_000));
 */
export type Reconcile = (
  key: string,
  context: ReconcileContext,
) => Promise<Action | void> | Observable<Action | void>;

/**
 * Configuration of `reconcileQueue` (and of `controller`, which passes it on).
 *
 * @example
 * reconcileQueue(reconcile, { concurrency: 4, backoff: { maxMs: 60_000 }, rateLimit: false });
 */
export interface ReconcileQueueConfig {
  /** Runs at once, at most (default 1). */
  concurrency?: number;
  /**
   * Per-key retry delays after a failure: `initialMs * factor^(n-1)` for the n-th consecutive
   * failure, capped at `maxMs`, spread by +-`jitter` (a fraction), never past `maxMs`.
   * Defaults: 100, 300 000, 2, 0.1.
   */
  backoff?: {
    /** The delay after a first failure (default 100 ms). */
    initialMs?: number;
    /** The longest delay (default 300 000 ms). */
    maxMs?: number;
    /** What each further failure multiplies the delay by (default 2). */
    factor?: number;
    /** The spread of each delay, a fraction either way (default 0.1). */
    jitter?: number;
  };
  /** Counted failures after which a key gives up until its next trigger (default Infinity). */
  maxAttempts?: number;
  /** An overall token bucket on run starts (default 10 per second, burst 100); `false`: none. */
  rateLimit?:
    | {
        /** Run starts allowed per second, on average (default 10). */
        perSecond?: number;
        /** Run starts allowed at once from a full bucket (default 100). */
        burst?: number;
      }
    | false;
  /** Quiet time a triggered key waits before it is ready; a trigger restarts it (default 0). */
  debounceMs?: number;
  /** When this emits: no new run starts, runs in flight finish, then the output completes. */
  stop?: Observable<unknown>;
  /** How long a graceful stop waits for runs in flight before aborting them (default 30 000). */
  drainTimeoutMs?: number;
  /** The queue's counts after each change (depth, running, waiting, adds), for metrics. */
  onQueue?: (state: QueueState) => void;
  /** Every timer goes through it (default `asyncScheduler`); a TestScheduler in marble specs. */
  scheduler?: SchedulerLike;
  /** The random source of the backoff jitter, in [0, 1) (default `Math.random`). */
  random?: () => number;
}
