import { Observable } from 'rxjs';
import type { Cluster, ResourceRef, WatchEvent, WatchOptions } from '../../types.js';
import { linkedAbort } from '../request/linkedAbort.js';
import { isObjectArgument } from '../../objects/argumentChecks.js';
import { openWatch, type WatchPayload } from './openWatch.js';

/**
 * One watch stream as a cold Observable: what `fromWatch` connects with, and the command's
 * watch of Tables (with `expand`, which turns one decoded event into the events it stands for:
 * one per Table row). Each subscription is one request with its own AbortController (linked to
 * `options.signal`, whose abort completes it quietly); events go straight from the decoder into
 * the subscriber, with no generator step or promise per event, and decoding stops at the event
 * after which the subscriber is closed. It completes when the server ends the watch;
 * unsubscribing aborts the request at any moment.
 *
 * ```
 * server:  --ADDED--MODIFIED--|      server 403:  |
 * events:  --ADDED--MODIFIED--|      events:      (ERROR|)
 * ```
 *
 * @example
 * watchStreamEvents(kc, pods, { namespace: 'default' }, {}).subscribe((e) => console.log(e.type));
 */
export function watchStreamEvents<T>(
  cluster: Cluster,
  resource: ResourceRef<unknown>,
  options: WatchOptions,
  payload: WatchPayload,
  expand?: (event: WatchEvent<T>) => readonly WatchEvent<T>[],
): Observable<WatchEvent<T>> {
  return new Observable<WatchEvent<T>>((subscriber) => {
    // Invalid options are answered by the request (one ERROR); their signal is read only if any.
    const signal = isObjectArgument(options) ? (options as WatchOptions).signal : undefined;
    if (signal?.aborted) return subscriber.complete();
    const { controller, unlink } = linkedAbort(signal, () => subscriber.complete());
    const event =
      expand === undefined
        ? (decoded: WatchEvent<T>) => (subscriber.next(decoded), !subscriber.closed)
        : (decoded: WatchEvent<T>) => {
            for (const each of expand(decoded)) {
              subscriber.next(each);
              if (subscriber.closed) return false;
            }
            return true;
          };
    const stream = openWatch<T>(cluster, resource, options, payload, controller.signal, {
      event,
      end: () => subscriber.complete(),
    });
    return () => {
      unlink();
      controller.abort();
      stream.close();
    };
  });
}
