import { defer, merge, Subject, type Observable } from 'rxjs';
import {
  resumeFromResourceVersion,
  type LifecycleEvent,
} from '../operators/resumeFromResourceVersion.js';
import { withBookmarks } from '../operators/withBookmarks.js';
import { fromWatch } from '../sources/fromWatch.js';
import type { WatchSource } from '../sources/WatchSource.js';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from '../types.js';

/** Options of {@link resilientWatch}. */
export interface ResilientWatchOptions<T = KubernetesObject> {
  /** Told about every connection step (the CLI reports them on stderr or to the browser). */
  onLifecycle?: (event: LifecycleEvent) => void;
  /**
   * Error at once when the cluster cannot be reached before the first list has succeeded
   * (default false: retry like any later network failure). A command run by hand should say
   * "unreachable" rather than retry forever against a wrong address.
   */
  failFastWhenUnreachable?: boolean;
  /** Makes the watch source (default `fromWatch`); `kube-rx watch` asks for Tables with it. */
  source?: (
    cluster: Cluster,
    resource: ResourceRef<T>,
    watchOptions: WatchOptions,
  ) => WatchSource<T>;
}

/**
 * The pipeline every command watches through: `fromWatch` + `withBookmarks()` (bookmarks as
 * heartbeats, so a dead connection is noticed) + `resumeFromResourceVersion()` (list, then watch
 * from the list's version, reconnect from the last version seen, relist after 410 Gone). It never
 * ends on its own; it errors with a `WatchError` on what retrying cannot fix (403, 404, 400...).
 *
 * @example
 * resilientWatch(cluster, pods, { namespace: 'default' }, { onLifecycle: report })
 *   .subscribe((event) => print(event));
 */
export function resilientWatch<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  watchOptions: WatchOptions,
  options: ResilientWatchOptions<T> = {},
): Observable<WatchEvent<T>> {
  return defer(() => {
    const unreachable = new Subject<never>();
    let listedOnce = false;
    const source = options.source ?? fromWatch<T>;
    const events = source(cluster, resource, watchOptions).pipe(
      withBookmarks<T>(),
      resumeFromResourceVersion<T>({
        onLifecycle: (event) => {
          if (event.type === 'relist-end') listedOnce = true;
          const networkFailure = event.type === 'backoff' && event.error.statusCode === 0;
          if (options.failFastWhenUnreachable && !listedOnce && networkFailure) {
            // Later, not now: the resumer is still inside its retry step; erroring the merge
            // once that step is registered lets the teardown cancel it.
            queueMicrotask(() => unreachable.error(event.error));
            return;
          }
          options.onLifecycle?.(event);
        },
      }),
    );
    return merge(events, unreachable);
  });
}
