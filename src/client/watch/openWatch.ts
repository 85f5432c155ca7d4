import type {
  Cluster,
  ObjectTransform,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../../types.js';
import { streamRequest, type StreamControl } from '../request/streamRequest.js';
import { WatchLineDecoder } from './watchLineDecoder.js';
import { watchRequest } from './watchQuery.js';

/** Where one watch stream delivers. */
export interface WatchStreamSink<T> {
  /** One event, synchronously from the decoder; false once the consumer is gone. */
  event(event: WatchEvent<T>): boolean;
  /**
   * The watch is over: the server ended it, it failed (its ERROR event came first), or decoding
   * had to stop. Never called once the signal aborted or the stream was closed.
   */
  end(): void;
}

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

/** A running watch stream: {@link StreamControl}. */
export type WatchStream = StreamControl;

/**
 * One watch over the one streaming request core, under `fromWatch`, `watchResource` and the
 * command's watch of Tables: it validates `options` and builds the request (as
 * `watchRequest`), sends it with the payload's Accept header, turns a failure before the body
 * into one ERROR event, decodes the body's lines into events with the options' `strict`,
 * `maxLineBytes` and `logger` and the payload's `decodeObject`, turns a body that breaks mid-way
 * into an ERROR (SYSTEM_ERROR, 0), and stays silent once `signal` aborted.
 *
 * ```
 * server:  --ADDED--MODIFIED--|      server 403:  |
 * sink:    --ADDED--MODIFIED--end    sink:        (ERROR,end)
 * ```
 *
 * @example
 * const stream = openWatchStream(kc, pods, {}, {}, signal, {
 *   event: (event) => (console.log(event.type), true),
 *   end: () => console.log('over'),
 * });
 */
export function openWatchStream<T>(
  cluster: Cluster,
  resource: ResourceRef<unknown>,
  options: WatchOptions,
  { accept, decodeObject }: WatchPayload,
  signal: AbortSignal,
  sink: WatchStreamSink<T>,
): WatchStream {
  let over = false;
  const end = () => {
    if (!over && !signal.aborted) sink.end();
    over = true;
  };
  const request = watchRequest(resource, options);
  const resourcePath = 'error' in request ? request.error.resourcePath : request.path;
  // Invalid options (a bad maxLineBytes among them) are answered before any decoding is set up.
  const decoder =
    'error' in request
      ? undefined
      : new WatchLineDecoder<T>((event) => !over && !signal.aborted && sink.event(event), {
          ...options,
          resourcePath,
          decodeObject,
        });
  const stream = streamRequest(
    cluster,
    'error' in request
      ? request.error
      : {
          path: resourcePath,
          query: request.query,
          accept,
          broken: 'the watch stream failed',
          logger: options.logger,
        },
    signal,
    {
      bytes: (buffer, start, stop) => {
        if (decoder!.write(buffer, start, stop)) return true;
        end();
        return false;
      },
      end: () => {
        decoder!.end();
        end();
      },
      failed: (error) => {
        sink.event({ type: 'ERROR', error });
        end();
      },
    },
  );
  return {
    pause: () => stream.pause(),
    resume: () => stream.resume(),
    close: () => {
      over = true;
      stream.close();
    },
  };
}
