import type { Readable } from 'node:stream';
import type { Cluster, KubernetesObject, ResourceRef, WatchEvent, WatchOptions } from './types.js';
import { networkError } from './sources/statusError.js';
import { WatchLineDecoder } from './sources/watchLineDecoder.js';
import { openWatch } from './sources/watchRequest.js';

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
 * for await (const event of watchResource(kc, { group: '', apiVersion: 'v1', plural: 'pods' }, { namespace: 'default' })) {
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
  const { signal } = options;
  if (signal?.aborted) return;
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal?.addEventListener('abort', abort, { once: true });
  let release: (() => void) | undefined;
  try {
    const opened = await openWatch(cluster, resource, options, controller.signal);
    if (!opened.ok) {
      if (!controller.signal.aborted) yield { type: 'ERROR', error: opened.error };
      return;
    }
    release = opened.response.release;
    const batch: WatchEvent<T>[] = [];
    const decoder = new WatchLineDecoder<T>((event) => batch.push(event), {
      ...options,
      resourcePath: opened.resourcePath,
    });
    try {
      for await (const chunk of opened.response.body as Readable) {
        const more = decoder.write(chunk as Buffer);
        // Yielding a batch per chunk keeps the per-event cost to one generator step.
        for (let i = 0; i < batch.length; i++) {
          if (controller.signal.aborted) return;
          yield batch[i];
        }
        batch.length = 0;
        if (!more) return;
      }
      decoder.end();
      if (!controller.signal.aborted) yield* batch;
    } catch (cause) {
      if (controller.signal.aborted) return;
      yield* batch;
      yield {
        type: 'ERROR',
        error: networkError(opened.resourcePath, cause, 'the watch stream failed'),
      };
    }
  } finally {
    signal?.removeEventListener('abort', abort);
    controller.abort();
    release?.();
  }
}
