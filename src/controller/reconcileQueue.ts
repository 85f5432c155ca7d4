import { asyncScheduler, Observable, type OperatorFunction, type Subscription } from 'rxjs';
import { ReconcileLoop } from './queue/ReconcileLoop.js';
import { TokenBucket } from './queue/TokenBucket.js';
import type { Reconcile, ReconcileQueueConfig } from './ReconcileQueueConfig.js';
import type { ReconcileReport } from './ReconcileReport.js';
import type { RunGate } from './queue/RunGate.js';
import type { ExpressLane } from './queue/ReconcileLoop.js';

/**
 * The work queue between triggers and the code that acts, as client-go's `workqueue` and
 * kube-rs's `Controller`: its input is a stream of keys ("look at this object"); for each key it
 * calls `reconcile(key, { signal, attempt })` and emits a {@link ReconcileReport} per run.
 *
 * - A key never runs twice at once. Triggered any number of times while it waits, it runs once;
 *   triggered while it runs, it runs once more after that run.
 * - At most `concurrency` runs at once, the key ready the longest first; an overall token bucket
 *   (`rateLimit`) on run starts.
 * - `Action.requeueAfter(ms)` runs the key again after `ms`; an earlier trigger runs it earlier.
 * - A failure (throw, rejection, Observable error) is retried with a per-key exponential backoff
 *   with jitter; a success resets it. A trigger during the backoff runs the key at once, but
 *   only a run at or after its scheduled retry counts as a further attempt. After `maxAttempts`
 *   counted failures the key gives up (`gave-up`) until its next trigger.
 * - `debounceMs`: a triggered key waits for that much quiet before it is ready.
 * - Errors are reports: only the input erroring errors the output. The output completes when
 *   the input has completed and nothing is ready, running or waiting, or after `stop`.
 * - Unsubscribing aborts the `signal` of every run in flight and drops the queue; `stop` lets
 *   runs in flight finish (aborting them after `drainTimeoutMs`), then completes.
 * - Every timer goes through `scheduler`: marble specs drive it in virtual time.
 *
 * ```
 * keys:                  -a-a-b--------|
 * reconcile:             each run takes 3 ms and succeeds; concurrency 1
 * reconcileQueue(r):     ----a--a--b---|   (a triggered during its run runs once more;
 *                                           b, ready at 5, waits for that run)
 * ```
 *
 * @example
 * keys$
 *   .pipe(
 *     reconcileQueue(
 *       async (key, { signal }) => {
 *         const ok = await ensureDeployment(key, signal);
 *         return ok ? undefined : Action.requeueAfter(10_000);
 *       },
 *       { concurrency: 4 },
 *     ),
 *   )
 *   .subscribe((report) => log(report.key, report.outcome));
 */
export function reconcileQueue(
  reconcile: Reconcile,
  config: ReconcileQueueConfig = {},
): OperatorFunction<string, ReconcileReport> {
  return gatedReconcileQueue(reconcile, config, undefined);
}

/**
 * `reconcileQueue` whose ready keys a {@link RunGate} may hold back before they start: what
 * `controller` runs its reconciles through (read-your-own-writes). `express` names the keys
 * whose run would be cheap and must not wait (a sharded member's releases): they start once
 * ready, outside `concurrency` and `rateLimit` (at most `express.concurrency` at once), never
 * beside another run of their key. Not a public export.
 *
 * @example
 * keys$.pipe(gatedReconcileQueue(reconcile, config, expectations));
 */
export function gatedReconcileQueue(
  reconcile: Reconcile,
  config: ReconcileQueueConfig,
  gate: RunGate | undefined,
  express?: ExpressLane,
): OperatorFunction<string, ReconcileReport> {
  const {
    concurrency = 1,
    backoff = {},
    maxAttempts = Infinity,
    rateLimit = {},
    debounceMs = 0,
    stop,
    drainTimeoutMs = 30_000,
    onQueue,
    scheduler = asyncScheduler,
    random = Math.random,
  } = config;
  const { initialMs = 100, maxMs = 300_000, factor = 2, jitter = 0.1 } = backoff;
  if (!(concurrency >= 1)) throw new RangeError('reconcileQueue: concurrency must be at least 1');
  if (!(maxAttempts >= 1)) throw new RangeError('reconcileQueue: maxAttempts must be at least 1');
  if (rateLimit !== false && !((rateLimit.perSecond ?? 10) > 0 && (rateLimit.burst ?? 100) >= 1)) {
    throw new RangeError('reconcileQueue: rateLimit needs perSecond > 0 and burst >= 1');
  }
  return (keys) =>
    new Observable<ReconcileReport>((subscriber) => {
      const bucket =
        rateLimit === false
          ? undefined
          : new TokenBucket(rateLimit.perSecond ?? 10, rateLimit.burst ?? 100, 0);
      const loop = new ReconcileLoop(
        reconcile,
        {
          concurrency,
          initialMs,
          maxMs,
          factor,
          jitter,
          maxAttempts,
          bucket,
          debounceMs,
          drainTimeoutMs,
          onQueue,
          scheduler,
          random,
          gate,
          express,
        },
        subscriber,
      );
      let input: Subscription | undefined;
      // Subscribed first: a stop that has already happened starts nothing.
      const stopping = stop?.subscribe(() => {
        input?.unsubscribe();
        loop.stop();
      });
      if (!subscriber.closed) {
        input = keys.subscribe({
          next: (key) => loop.trigger(key),
          error: (error: unknown) => subscriber.error(error),
          complete: () => loop.inputComplete(),
        });
      }
      return () => {
        stopping?.unsubscribe();
        input?.unsubscribe();
        loop.close();
      };
    });
}
