import { isConflict } from '../../WatchError.js';
import { assertObjectArgument } from '../../objects/argumentChecks.js';

/** The wait between attempts of {@link retryOnConflict}: client-go's `retry.DefaultRetry`. */
export interface ConflictBackoff {
  /** The first wait (default 10 ms). */
  initialMs?: number;
  /** Each wait is the previous one times this (default 1: the same wait every time). */
  factor?: number;
  /** Up to this fraction of the wait is added at random (default 0.1). */
  jitter?: number;
  /** No wait is longer (default: unbounded). */
  maxMs?: number;
}

/** Options of {@link retryOnConflict}. */
export interface RetryOnConflictOptions {
  /** How many times `fn` runs at most (default 5, as client-go's `DefaultRetry.Steps`). */
  attempts?: number;
  /** The waits between attempts (default 10 ms, factor 1, jitter 0.1). */
  backoff?: ConflictBackoff;
  /** Aborting it stops retrying: the last conflict is what rejects. */
  signal?: AbortSignal;
}

/**
 * Runs `fn` and runs it again while it rejects with a conflict (`isConflict`: a 409 with reason
 * Conflict, a stale resourceVersion or a server-side apply conflict), up to `attempts` times
 * with a short backoff, as client-go's `retry.RetryOnConflict(retry.DefaultRetry, fn)`. Any
 * other rejection (AlreadyExists included) passes through at once; after the last attempt the
 * last conflict does. `fn` should read the object afresh each time: retrying a write built from
 * the same stale read only conflicts again.
 *
 * ```
 * fn:     --409--409--ok
 * result: ------------ok      (attempt 1, 2 conflict; 3 succeeds)
 * ```
 *
 * @example
 * await retryOnConflict(async () => {
 *   const web = await api.get('web', { namespace: 'shop' });
 *   web.spec!.replicas = 3;
 *   return api.replace(web);
 * });
 */
export async function retryOnConflict<R>(
  fn: (attempt: number) => Promise<R>,
  options: RetryOnConflictOptions = {},
): Promise<R> {
  // Checked before anything runs, each message naming the argument (never its value: a Symbol
  // in a template literal throws a TypeError of its own).
  if (typeof fn !== 'function') throw new TypeError('retryOnConflict: fn must be a function');
  assertObjectArgument('retryOnConflict', 'options', options);
  const { attempts = 5, backoff = {}, signal } = options;
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new RangeError('retryOnConflict: attempts must be a whole number >= 1');
  assertObjectArgument('retryOnConflict', 'options.backoff', backoff);
  const { initialMs = 10, factor = 1, jitter = 0.1, maxMs = Infinity } = backoff;
  for (const [name, value] of Object.entries({ initialMs, factor, jitter, maxMs }))
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0)
      throw new RangeError(`retryOnConflict: backoff.${name} must be a number >= 0`);
  if (signal !== undefined && typeof (signal as AbortSignal)?.addEventListener !== 'function')
    throw new TypeError('retryOnConflict: options.signal must be an AbortSignal');
  let waitMs = initialMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts || signal?.aborted) throw error;
      await sleep(Math.min(maxMs, waitMs + Math.random() * jitter * waitMs), signal);
      if (signal?.aborted) throw error;
    }
    waitMs = Math.min(maxMs, waitMs * factor);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the loop then gives up). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
