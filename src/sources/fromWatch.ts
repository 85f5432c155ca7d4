import { Observable } from 'rxjs';
import type { Readable } from 'node:stream';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from '../types.js';
import { linkedAbort } from './abortLink.js';
import { fromList } from './fromList.js';
import { networkError } from './statusError.js';
import { createWatchSource, type WatchSource } from './WatchSource.js';
import { WatchLineDecoder } from './watchLineDecoder.js';
import { openWatch } from './watchRequest.js';

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
 * step or promise per event.
 */
function watchConnection<T>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions,
): Observable<WatchEvent<T>> {
  return new Observable<WatchEvent<T>>((subscriber) => {
    if (options.signal?.aborted) {
      subscriber.complete();
      return;
    }
    const { controller, unlink } = linkedAbort(options.signal, () => subscriber.complete());
    let release: (() => void) | undefined;
    let body: Readable | undefined;

    openWatch(cluster, resource, options, controller.signal).then(
      (opened) => {
        if (!opened.ok) {
          if (!controller.signal.aborted) {
            subscriber.next({ type: 'ERROR', error: opened.error });
            subscriber.complete();
          }
          return;
        }
        release = opened.response.release;
        if (subscriber.closed) return release();
        const stream = (body = opened.response.body);
        const decoder = new WatchLineDecoder<T>((event) => subscriber.next(event), {
          ...options,
          resourcePath: opened.resourcePath,
        });
        const finish = () => {
          stream.removeAllListeners('data');
          subscriber.complete();
        };
        stream.on('data', (chunk: Buffer) => {
          if (subscriber.closed) return decoder.stop();
          if (!decoder.write(chunk)) finish();
        });
        stream.once('end', () => {
          decoder.end();
          subscriber.complete();
        });
        stream.on('error', (cause) => {
          if (controller.signal.aborted || subscriber.closed) return;
          subscriber.next({
            type: 'ERROR',
            error: networkError(opened.resourcePath, cause, 'the watch stream failed'),
          });
          subscriber.complete();
        });
        stream.resume();
      },
      (cause) => {
        // openWatch reports failures as results; this is a bug guard, still errors as data.
        subscriber.next({ type: 'ERROR', error: networkError('', cause) });
        subscriber.complete();
      },
    );

    return () => {
      unlink();
      controller.abort();
      body?.removeAllListeners('data');
      release?.();
    };
  });
}
