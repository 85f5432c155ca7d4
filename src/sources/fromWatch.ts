import { Observable } from 'rxjs';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from '../types.js';
import { fromList } from './fromList.js';
import { createWatchSource, type WatchSource } from './WatchSource.js';
import { linkedAbort } from './linkedAbort.js';
import { connectWatch } from './watchConnection.js';

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
 * One connection over the watch core. Events go straight from the decoder into the subscriber,
 * with no generator step or promise per event; decoding stops at the event after which the
 * subscriber is closed.
 */
function watchConnection<T>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions,
): Observable<WatchEvent<T>> {
  return new Observable<WatchEvent<T>>((subscriber) => {
    if (options.signal?.aborted) return subscriber.complete();
    const { controller, unlink } = linkedAbort(options.signal, () => subscriber.complete());
    const connection = connectWatch<T>(cluster, resource, options, controller.signal, {
      event: (event) => (subscriber.next(event), !subscriber.closed),
      end: () => subscriber.complete(),
    });
    return () => {
      unlink();
      controller.abort();
      connection.close();
    };
  });
}
