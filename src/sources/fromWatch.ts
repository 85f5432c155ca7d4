import { of, throwError } from 'rxjs';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from '../types.js';
import { isObjectArgument, requestArgumentsError } from '../objects/argumentChecks.js';
import { fromList } from './fromList.js';
import { createWatchSource, type WatchSource } from './WatchSource.js';
import { watchStreamEvents } from '../client/watch/watchStreamEvents.js';
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
  // Options that are not an object cannot be kept or patched: every connection answers them
  // with the request's one ERROR (BAD_REQUEST), and lists error with it; nothing is sent.
  if (!isObjectArgument(options)) {
    const invalid = requestArgumentsError(resource, options)!;
    return createWatchSource<T>({
      cluster,
      resource,
      options: {},
      connect: () => of<WatchEvent<T>>({ type: 'ERROR', error: invalid }),
      list: () => throwError(() => invalid),
    });
  }
  return createWatchSource<T>({
    cluster,
    resource,
    options,
    connect: (watchOptions) =>
      watchStreamEvents<T>(cluster, resource, watchOptions, watchPayload(resource, watchOptions)),
    list: (listOptions) => fromList<T>(cluster, resource, listOptions),
  });
}
