import {
  Observable,
  asyncScheduler,
  throwError,
  timeout,
  type MonoTypeOperatorFunction,
  type SchedulerAction,
  type SchedulerLike,
} from 'rxjs';
import { WatchError } from '../WatchError.js';
import { describeResourcePath } from '../objects/resourcePath.js';
import { createWatchSource, sourceInit, type WatchSource } from '../sources/WatchSource.js';
import type { KubernetesObject, WatchEvent } from '../types.js';
import { requireWatchSource } from '../sources/requireWatchSource.js';

/** Configuration of {@link withBookmarks}. */
export interface WithBookmarksConfig {
  /**
   * How long a connection may stay silent, in ms, before it counts as dead (default 150 000: the
   * API server sends a bookmark about once a minute, so this allows one to be late). Checked
   * every `idleTimeout / 2`: the error comes 1x to 1.5x `idleTimeout` after the last event. Also
   * the longest a list through this source may take.
   */
  idleTimeout?: number;
  /** Where the idle timer runs (default `asyncScheduler`; a TestScheduler in marble tests). */
  scheduler?: SchedulerLike;
}

/**
 * Asks the server for bookmarks (`allowWatchBookmarks=true` on every connection) and uses every
 * event and bookmark as a heartbeat: a connection silent for `idleTimeout` ms errors with a
 * {@link WatchError} (SYSTEM_ERROR, status 0, "idle"), so `resumeFromResourceVersion` or `retry`
 * reconnects instead of waiting forever on a half-dead socket. The silence is checked every
 * `idleTimeout / 2` ms, so the error comes `idleTimeout` to 1.5x `idleTimeout` after the last
 * event (exactly `idleTimeout` after connecting when nothing came): no clock is read per event.
 * BOOKMARK events flow on. A list through this source that has not answered within
 * `idleTimeout` fails the same way.
 *
 * The result is still a `WatchSource` (`withOptions` and `list` work, and its `options` carry
 * `allowWatchBookmarks: true`), so it goes before `resumeFromResourceVersion()`.
 *
 * ```
 * source:                    -a-b-----------------|
 * withBookmarks({ idleTimeout: 4 }):
 *                            -a-b----#      (# = WatchError SYSTEM_ERROR 0, idle: 5 ms after b)
 * ```
 *
 * @example
 * fromWatch(kc, pods, { namespace: 'default' })
 *   .pipe(withBookmarks({ idleTimeout: 90_000 }), resumeFromResourceVersion())
 *   .subscribe((event) => console.log(event.type));
 */
export function withBookmarks<T = KubernetesObject>(
  config: WithBookmarksConfig = {},
): (source: Observable<WatchEvent<T>>) => WatchSource<T> {
  const { idleTimeout = 150_000, scheduler = asyncScheduler } = config;
  return (input) => {
    const source = requireWatchSource(input, 'withBookmarks');
    const idleError = (message: string, namespace: string | undefined) =>
      WatchError.idle(message, describeResourcePath(source.resource, namespace));
    const init = sourceInit(source);
    return createWatchSource<T>({
      ...init,
      options: { ...init.options, allowWatchBookmarks: true },
      connect: (options) =>
        init
          .connect({ ...options, allowWatchBookmarks: true })
          .pipe(
            failWhenIdle(idleTimeout, scheduler, () =>
              idleError(
                `watch idle: no event or bookmark for ${idleTimeout} ms, the connection is presumed dead`,
                options.namespace,
              ),
            ),
          ),
      // A list that never answers would hang a resumed stream as surely as a silent watch.
      list: (options) =>
        init.list(options).pipe(
          timeout({
            first: idleTimeout,
            scheduler,
            with: () =>
              throwError(() =>
                idleError(`list idle: no answer within ${idleTimeout} ms`, options.namespace),
              ),
          }),
        ),
    });
  };
}

/**
 * Errors with `idleError()` once the source has been silent for `idleTimeout` ms (counted from
 * the subscription, then from each value), within a tick: the error comes between `idleTimeout`
 * and 1.5x `idleTimeout` after the last value (exactly `idleTimeout` after the subscription when
 * nothing came). A value only sets a flag; one timer ticks every `idleTimeout / 2` and errors at
 * the second tick in a row that found the flag unset. Neither a timer nor a clock read per value:
 * reading `scheduler.now()` per event was a measurable share of the resumed store's cost.
 *
 * ```
 * ticks (idleTimeout 4):  --t-t-t-t
 * source:                 -a-b-----
 * output:                 -a-b----#    (the tick at 4 saw b; 6 and 8 are silent: error at 8)
 * ```
 */
function failWhenIdle<V>(
  idleTimeout: number,
  scheduler: SchedulerLike,
  idleError: () => WatchError,
): MonoTypeOperatorFunction<V> {
  const tick = idleTimeout / 2;
  return (source) =>
    new Observable<V>((subscriber) => {
      let seen = false;
      let silentTicks = 0;
      const timer = scheduler.schedule(function (this: SchedulerAction<unknown>) {
        if (seen) {
          seen = false;
          silentTicks = 0;
        } else if (++silentTicks >= 2) {
          return subscriber.error(idleError());
        }
        // The same action again: an interval timer of the same delay is reused, not re-made.
        this.schedule(undefined, tick);
      }, tick);
      const subscription = source.subscribe({
        next: (value) => {
          seen = true;
          subscriber.next(value);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        timer.unsubscribe();
        subscription.unsubscribe();
      };
    });
}
