import type { SchedulerLike } from 'rxjs';
import type { LifecycleEvent } from './LifecycleEvent.js';

/**
 * Configuration of `resumeFromResourceVersion` (and of `resilientWatch`, which adds `bookmarks`).
 *
 * @example
 * resumeFromResourceVersion<V1Pod>({
 *   key: (pod) => pod.metadata!.uid!,
 *   initialState: 'watch-list',
 *   onLifecycle: (e) => console.error('pods:', e.type),
 * });
 */
export interface ResumeConfig<T = any> {
  /**
   * The key of an object (default `namespace/name`, or `name` for cluster-scoped objects): what
   * a relist compares and what repeats are told by. Give the key of the store downstream: keyed
   * by uid, a pod deleted and re-created under the same name while the watch was away arrives as
   * DELETED (old uid) then ADDED (new uid), not as one MODIFIED.
   */
  key?: (object: T) => string;
  /**
   * How to start when the source options carry no `resourceVersion`: `'list'` (default) lists
   * and watches from the list's version; `'watch-list'` asks the watch for the initial state
   * (`sendInitialEvents`), falling back to a list when the server refuses; `'none'` just watches.
   */
  initialState?: 'list' | 'watch-list' | 'none';
  /** On `410 Gone`: relist and emit the difference (default), or error with the WatchError. */
  onExpired?: 'relist' | 'error';
  /** How many consecutive failures are retried (default Infinity); then the stream errors. */
  maxRetries?: number;
  /**
   * On what retrying cannot fix by itself (400, 403, 404, other 4xx, a second 401 in a row):
   * error the stream with the WatchError (default), or `'retry'` with the same backoff, each
   * attempt reported as a `backoff` lifecycle event: what a long-running controller needs,
   * since its RBAC rules and CRDs are often applied after it starts (client-go's reflector
   * retries them for ever).
   */
  onRefused?: 'error' | 'retry';
  /** Told about every step: connecting, connected, disconnected, backoff, relists, expiry. */
  onLifecycle?: (event: LifecycleEvent) => void;
  /** Where backoff delays and time run (default `asyncScheduler`). */
  scheduler?: SchedulerLike;
  /** Jitter and the per-connection `timeoutSeconds` draw from it (default `Math.random`). */
  random?: () => number;
}
