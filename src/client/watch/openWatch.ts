import type { Cluster, ObjectTransform, ResourceRef, WatchOptions } from '../../types.js';
import { streamRequest, type StreamControl } from '../request/streamRequest.js';
import { WatchLineDecoder, type WatchConsumer } from './watchLineDecoder.js';
import { watchRequest } from './watchRequest.js';

/** What the payload of a watch is: asked for with `accept`, each object decoded by `decodeObject`. */
export interface WatchPayload {
  /** The Accept header (plain JSON when absent). */
  accept?: string;
  /**
   * Runs on the object of each ADDED, MODIFIED and DELETED event (the payload's reduction, the
   * caller's `transform`); one that throws makes the line unreadable (skipped, or PARSE_ERROR
   * with `strict`).
   */
  decodeObject?: ObjectTransform;
}

/**
 * Opens one watch over the one streaming request core, under `fromWatch`, `watchResource` and
 * the command's watch of Tables. Its two halves are split by what needs them: `watchRequest`
 * (the path and query, or why the options are invalid) is pure, so the operators check options
 * with it before they subscribe; this sends it with the payload's Accept header and hands the
 * body straight to a {@link WatchLineDecoder} (the body's sink, with the options' `strict`,
 * `maxLineBytes` and `logger` and the payload's `decodeObject`). A failure before the body, or a
 * body that breaks mid-way (SYSTEM_ERROR, 0), is one ERROR event; `consumer` hears nothing once
 * `signal` aborted or the stream was closed.
 *
 * ```
 * server:    --ADDED--MODIFIED--|      server 403:  |
 * consumer:  --ADDED--MODIFIED--end    consumer:    (ERROR,end)
 * ```
 *
 * @example
 * const stream = openWatch(kc, pods, {}, {}, signal, {
 *   event: (event) => (console.log(event.type), true),
 *   end: () => console.log('over'),
 * });
 */
export function openWatch<T>(
  cluster: Cluster,
  resource: ResourceRef<unknown>,
  options: WatchOptions,
  { accept, decodeObject }: WatchPayload,
  signal: AbortSignal,
  consumer: WatchConsumer<T>,
): StreamControl {
  const request = watchRequest(resource, options);
  if ('error' in request) {
    // Invalid options (a bad maxLineBytes among them) are not decoded with: the decoder only
    // tells the request's error.
    const { resourcePath } = request.error;
    return streamRequest(
      cluster,
      request.error,
      signal,
      new WatchLineDecoder<T>(consumer, { resourcePath }),
    );
  }
  const { path, query } = request;
  const decoder = new WatchLineDecoder<T>(consumer, {
    ...options,
    resourcePath: path,
    decodeObject,
  });
  const broken = 'the watch stream failed';
  return streamRequest(
    cluster,
    { path, query, accept, broken, logger: options.logger },
    signal,
    decoder,
  );
}
