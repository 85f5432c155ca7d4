/**
 * What one run of a key came to, emitted by `reconcileQueue` (and `controller`) after each run:
 * `done` (no requeue), `requeue` (its Action asked to run again after `nextRunInMs`), `error`
 * (it threw, rejected or errored; retried after `nextRunInMs` of backoff) or `gave-up`
 * (`maxAttempts` reached: it waits for its next trigger).
 */
export interface ReconcileReport {
  /** The key that ran. */
  key: string;
  /** What the run came to (see above). */
  outcome: 'done' | 'requeue' | 'error' | 'gave-up';
  /** What the run threw, with `error` and `gave-up`. */
  error?: unknown;
  /** 1 for a first run, n for the n-th consecutive failing attempt's run. */
  attempt: number;
  /** How long the key waited between becoming ready and its run starting. */
  queuedMs: number;
  /** How long the run took. */
  durationMs: number;
  /** When the key runs again (requeue or backoff), from the end of this run. */
  nextRunInMs?: number;
  /**
   * `controller` only: this run started after waiting out `expectationTimeoutMs` for the writes
   * of the key's previous runs to reach its stores, so it may have read a store without them.
   */
  staleRead?: boolean;
}

/** The queue's counts after each change, for metrics (`config.onQueue`). */
export interface QueueState {
  /** Keys ready to run, not yet running (client-go's `workqueue_depth`). */
  depth: number;
  /** Runs in flight. */
  running: number;
  /**
   * Keys waiting for a time (backoff, requeue or debounce), and, in a `controller`, ready keys
   * waiting for the writes of their previous run to reach the stores.
   */
  waiting: number;
  /** Triggers taken since the queue started, coalesced ones included (`workqueue_adds_total`). */
  adds: number;
}
