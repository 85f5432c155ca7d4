import { asyncScheduler, throwError, timeout, type Observable, type SchedulerLike } from 'rxjs';
import { WatchError } from '../WatchError.js';
import { describeResourcePath } from '../sources/resourcePath.js';
import { createWatchSource, sourceInit, type WatchSource } from '../sources/WatchSource.js';
import type { KubernetesObject, WatchEvent } from '../types.js';
import { requireWatchSource } from './internal/requireWatchSource.js';

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
    const idle = (message: string, namespace: string | undefined) =>
      throwError(
        () =>
          new WatchError(message, {
            errorType: 'SYSTEM_ERROR',
            statusCode: 0,
            resourcePath: describeResourcePath(source.resource, namespace),
          }),
      );
    const init = sourceInit(source);
    return createWatchSource<T>({
      ...init,
      options: { ...init.options, allowWatchBookmarks: true },
      connect: (options) =>
        init.connect({ ...options, allowWatchBookmarks: true }).pipe(
          timeout({
            each: idleTimeout,
            scheduler,
            with: () =>
              idle(
                `watch idle: no event or bookmark for ${idleTimeout} ms, the connection is presumed dead`,
                options.namespace,
              ),
          }),
        ),
      // A list that never answers would hang a resumed stream as surely as a silent watch.
      list: (options) =>
        init.list(options).pipe(
          timeout({
            first: idleTimeout,
            scheduler,
            with: () => idle(`list idle: no answer within ${idleTimeout} ms`, options.namespace),
          }),
        ),
    });
  };
}
