import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from './types.js';
import { linkedAbort } from './client/request/linkedAbort.js';
import { openWatch } from './client/watch/openWatch.js';
import type { StreamControl } from './client/request/streamRequest.js';
import { watchPayload } from './sources/watchPayload.js';
import { isObjectArgument } from './objects/argumentChecks.js';

/** Events decoded and not yet taken by the consumer, past which the socket is paused. */
const HIGH_WATER_EVENTS = 1024;

/**
 * Watches one resource: one `GET ...?watch=true`, as an async generator of events. Errors are
 * data: it never throws. Invalid input, credentials that cannot be resolved, network failures
 * and non-2xx answers each yield one ERROR event and end; an in-stream ERROR (such as
 * `410 Gone`) is yielded and the stream goes on until the server ends it. Lines that are not
 * watch events are logged and skipped (with `strict`, they end the stream with PARSE_ERROR).
 * Whatever ends it (the server, an error, `signal`, or the consumer's `break`), the response
 * body and socket are released.
 *
 * ```
 * server:  --ADDED--MODIFIED--{"type":"ERROR",410}--|
 * yields:  --ADDED--MODIFIED--ERROR(GONE)-----------|
 * ```
 *
 * @example
 * const kc = new KubeConfig();
 * kc.loadFromDefault();
 * for await (const event of watchResource(kc, { group: '', version: 'v1', plural: 'pods' }, { namespace: 'default' })) {
 *   if (event.type === 'ERROR') {
 *     console.error(event.error.errorType, event.error.message);
 *     break;
 *   }
 *   console.log(event.type, event.object.metadata?.name, event.resourceVersion);
 * }
 */
export async function* watchResource<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions = {},
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  // Invalid options are answered by the request (one ERROR); their signal is read only if any.
  const signal = isObjectArgument(options) ? (options as WatchOptions).signal : undefined;
  if (signal?.aborted) return;
  let wake: (() => void) | undefined;
  const { controller, unlink } = linkedAbort(signal, () => wake?.());
  // Events are decoded as the bytes arrive and queued for the consumer; past a bound the
  // stream is paused until the consumer catches up.
  let queue: WatchEvent<T>[] = [];
  let ended = false;
  let paused = false;
  let stream: StreamControl | undefined;
  try {
    const payload = watchPayload(resource, options);
    stream = openWatch<T>(cluster, resource, options, payload, controller.signal, {
      event: (event) => {
        queue.push(event);
        if (queue.length >= HIGH_WATER_EVENTS && !paused) {
          paused = true;
          stream?.pause();
        }
        wake?.();
        return true;
      },
      end: () => {
        ended = true;
        wake?.();
      },
    });
    while (!controller.signal.aborted) {
      if (queue.length === 0) {
        if (ended) return;
        if (paused) {
          paused = false;
          stream.resume();
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      // One generator step per event, and no promise per event beyond it.
      const batch = queue;
      queue = [];
      for (let i = 0; i < batch.length; i++) {
        if (controller.signal.aborted) return;
        yield batch[i];
      }
    }
  } finally {
    unlink();
    controller.abort();
    stream?.close();
  }
}
