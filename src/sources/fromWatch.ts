import type { Cluster, KubernetesObject, ResourceRef, WatchOptions } from '../types.js';
import { fromList } from './fromList.js';
import { createWatchSource, type WatchSource } from './WatchSource.js';
import { watchStreamEvents } from '../client/watchStreamEvents.js';
import { watchPayload } from './watchPayload.js';

/**
 * A cold Observable of one watch: each subscription sends one request with exactly the request,
 * framing and event semantics of `watchResource`; ERROR events are values; it completes when
 * the server ends the watch. Unsubscribing aborts the request at any moment, before the
 * response headers too. `options.signal` aborting completes it quietly.
 *
 * The result is a {@link WatchSource}: it knows its request (`cluster`, `resource`, `options`),
 * `withOptions(patch)` makes another, and `list()` lists the same resource, which is what
 * `resumeFromResourceVersion` builds on.
 *
 * ```
 * server:      --ADDED--MODIFIED--BOOKMARK--|
 * fromWatch:   --ADDED--MODIFIED--BOOKMARK--|
 * server 403:  |
 * fromWatch:   (ERROR|)
 * ```
 *
 * @example
 * const kc = new KubeConfig();
 * kc.loadFromDefault();
 * fromWatch(kc, pods, { namespace: 'default' })
 *   .pipe(skipBookmarks())
 *   .subscribe((event) => console.log(event.type));
 */
export function fromWatch<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions = {},
): WatchSource<T> {
  return createWatchSource<T>({
    cluster,
    resource,
    options,
    connect: (watchOptions) =>
      watchStreamEvents<T>(cluster, resource, watchOptions, watchPayload(resource, watchOptions)),
    list: (listOptions) => fromList<T>(cluster, resource, listOptions),
  });
}
