import {
  Observable,
  asyncScheduler,
  throwError,
  timeout,
  type MonoTypeOperatorFunction,
  type SchedulerLike,
  type Subscription,
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
   * API server sends a bookmark about once a minute, so this allows one to be late). Also the
   * longest a list through this source may take.
   */
  idleTimeout?: number;
  /** Where the idle timer runs (default `asyncScheduler`; a TestScheduler in marble tests). */
  scheduler?: SchedulerLike;
}

/**
 * Asks the server for bookmarks (`allowWatchBookmarks=true` on every connection) and uses every
 * event and bookmark as a heartbeat: a connection silent for `idleTimeout` ms errors with a
 * {@link WatchError} (SYSTEM_ERROR, status 0, "idle"), so `resumeFromResourceVersion` or `retry`
 * reconnects instead of waiting forever on a half-dead socket. BOOKMARK events flow on. A list
 * through this source that has not answered within `idleTimeout` fails the same way.
 *
 * The result is still a `WatchSource` (`withOptions` and `list` work, and its `options` carry
 * `allowWatchBookmarks: true`), so it goes before `resumeFromResourceVersion()`.
 *
 * ```
 * source:                    -a--b-----------------|
 * withBookmarks({ idleTimeout: 5 }):
 *                            -a--b----#     (# = WatchError SYSTEM_ERROR 0, idle)
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
 * the subscription, then from each value), like rxjs `timeout({ each })`, but without clearing
 * and arming a timer for every value: a value only records the time, and one timer, armed for
 * when the silence would be complete, re-arms itself for the remainder when values came
 * meanwhile. A busy watch costs one timer per `idleTimeout`, not one per event.
 */
function failWhenIdle<V>(
  idleTimeout: number,
  scheduler: SchedulerLike,
  idleError: () => WatchError,
): MonoTypeOperatorFunction<V> {
  return (source) =>
    new Observable<V>((subscriber) => {
      let lastSeen = scheduler.now();
      let timer: Subscription | undefined;
      const arm = (delay: number) => {
        timer = scheduler.schedule(() => {
          const silent = scheduler.now() - lastSeen;
          if (silent >= idleTimeout) subscriber.error(idleError());
          else arm(idleTimeout - silent);
        }, delay);
      };
      arm(idleTimeout);
      const subscription = source.subscribe({
        next: (value) => {
          lastSeen = scheduler.now();
          subscriber.next(value);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        timer?.unsubscribe();
        subscription.unsubscribe();
      };
    });
}
