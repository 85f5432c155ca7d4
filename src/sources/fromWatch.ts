import { Observable } from 'rxjs';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from '../types.js';
import { fromList } from './fromList.js';
import { createWatchSource, type WatchSource } from './WatchSource.js';
import { WatchLineDecoder } from './watchLineDecoder.js';
import { openWatch, streamFailed } from './watchRequest.js';
import { streamResponse } from './streamResponse.js';

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
    connect: (connectionOptions) => watchConnection<T>(cluster, resource, connectionOptions),
    list: (listOptions) => fromList<T>(cluster, resource, listOptions),
  });
}

/**
 * One connection. Events go straight from the decoder into the subscriber, with no generator
 * step or promise per event; decoding stops at the event after which the subscriber is closed.
 */
function watchConnection<T>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions,
): Observable<WatchEvent<T>> {
  return new Observable<WatchEvent<T>>((subscriber) => {
    let resourcePath = '';
    let decoder: WatchLineDecoder<T> | undefined;
    return streamResponse(
      subscriber,
      options.signal,
      async (signal) => {
        const opened = await openWatch(cluster, resource, options, signal);
        resourcePath = opened.resourcePath;
        if (opened.ok) {
          const emit = (event: WatchEvent<T>) => (subscriber.next(event), !subscriber.closed);
          decoder = new WatchLineDecoder<T>(emit, { ...options, resourcePath });
        }
        return opened;
      },
      {
        failed: (failure) => {
          subscriber.next({ type: 'ERROR', error: failure });
          subscriber.complete();
        },
        bytes: (buffer, start, end) =>
          decoder!.write(buffer, start, end) || (subscriber.complete(), false),
        end: () => {
          decoder!.end();
          subscriber.complete();
        },
        broken: (cause) => {
          subscriber.next(streamFailed(resourcePath, cause));
          subscriber.complete();
        },
      },
    );
  });
}
