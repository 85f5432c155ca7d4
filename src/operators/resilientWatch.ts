import { watchRequest } from '../client/watch/watchRequest.js';
import { assertObjectArgument } from '../objects/argumentChecks.js';
import { throwError, type Observable } from 'rxjs';
import { fromWatch } from '../sources/fromWatch.js';
import type { WatchSource } from '../sources/WatchSource.js';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from '../types.js';
import type { ResumeConfig } from './resume/ResumeConfig.js';
import { resumeFromResourceVersion } from './resumeFromResourceVersion.js';
import { withBookmarks, type WithBookmarksConfig } from './withBookmarks.js';

/**
 * Configuration of {@link resilientWatch}: `resumeFromResourceVersion`'s, and `bookmarks` for
 * `withBookmarks` (whose `scheduler` defaults to this one, so marble tests drive both).
 *
 * @example
 * const config: ResilientWatchConfig<V1Pod> = {
 *   key: (pod) => pod.metadata!.uid!,
 *   bookmarks: { idleTimeout: 90_000 },
 *   onLifecycle: (e) => console.error('pods:', e.type),
 * };
 */
export interface ResilientWatchConfig<T = any> extends ResumeConfig<T> {
  /** The heartbeat: how long a watch may stay silent before it counts as dead. */
  bookmarks?: WithBookmarksConfig;
  /** Opens the watch source (default `fromWatch`): a source with other request headers, say. */
  source?: (
    cluster: Cluster,
    resource: ResourceRef<any>,
    options: WatchOptions,
  ) => WatchSource<any>;
}

/**
 * The recommended pipeline as one call: `fromWatch(cluster, resource, options)` +
 * `withBookmarks(config.bookmarks)` (bookmarks as heartbeats: a silent, half-dead connection is
 * noticed) + `resumeFromResourceVersion(config)` (lists, then watches from the list's version,
 * reconnects from the last version seen, relists after `410 Gone` sending only the difference).
 * An endless, gap-free stream without ERROR events; it errors with a `WatchError` only on what
 * retrying cannot fix (400, 403, 404, a second 401, `maxRetries` consecutive failures).
 *
 * Give it the `key` of the store you fold it into, so that relists and the store agree on what
 * an object is.
 *
 * ```
 * server:  list [a@3] at 3 | watch: -m--| (closed) | watch from 5: --x (410) | list [b@8] at 9
 * output:  (ae)-m------------------------(dbe)
 *          a = ADDED a@3, e = end BOOKMARK, m = MODIFIED a@5, d = DELETED a@5, b = ADDED b@8
 * ```
 *
 * @example
 * resilientWatch(kc, pods, { namespace: 'default' }, { key: (pod) => pod.metadata!.uid! })
 *   .pipe(toStore({ key: (pod) => pod.metadata!.uid! }))
 *   .subscribe((store) => store.synced && render(store.values()));
 */
export function resilientWatch<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions = {},
  config: ResilientWatchConfig<NoInfer<T>> = {},
): Observable<WatchEvent<T>> {
  // Configuration is checked at call time; the request's arguments by the request (BAD_REQUEST).
  assertObjectArgument('resilientWatch', 'config', config, true);
  const { bookmarks, source = fromWatch, ...resume } = config;
  // The watch's arguments are checked before the first list: an option only a watch takes
  // (timeoutSeconds, maxLineBytes...) would otherwise pass the list and fail only later.
  const request = watchRequest(resource, options);
  if ('error' in request) return throwError(() => request.error);
  return (source(cluster, resource, options) as WatchSource<T>).pipe(
    withBookmarks<T>({ scheduler: resume.scheduler, ...bookmarks }),
    resumeFromResourceVersion<T>(resume),
  );
}
