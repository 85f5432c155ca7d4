import { objectDecoder } from '../shapes/decodeObject.js';
import type { Cluster, ResourceRef, WatchEvent, WatchOptions } from '../types.js';
import { networkError } from '../client/statusError.js';
import type { StreamingBody } from '../client/request.js';
import { WatchLineDecoder } from './watchLineDecoder.js';
import { openWatch, streamFailed } from './watchRequest.js';

/** Where one watch connection delivers. */
export interface WatchSink<T> {
  /** One event, synchronously from the decoder; false once the consumer is gone. */
  event(event: WatchEvent<T>): boolean;
  /**
   * The watch is over: the server ended it, it failed (its ERROR event came first), or decoding
   * had to stop. Never called once the signal aborted.
   */
  end(): void;
}

/** A running watch connection. */
export interface WatchConnection {
  /** Stops reading from the server (backpressure) until `resume()`. */
  pause(): void;
  resume(): void;
  /** Cancels the request at any moment and frees its connection; idempotent. */
  close(): void;
}

/**
 * The one connection core of a watch (open, decode, release) under both `watchResource` and
 * `fromWatch`: it validates and sends the request, turns a failure before the body into one
 * ERROR event, feeds the body's bytes straight into the line decoder, turns a body that breaks
 * mid-way into an ERROR (SYSTEM_ERROR, 0), and stays silent once `signal` aborted.
 */
export function connectWatch<T>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions,
  signal: AbortSignal,
  sink: WatchSink<T>,
): WatchConnection {
  let body: StreamingBody | undefined;
  let closed = false;
  let paused = false;
  const over = () => {
    if (!closed && !signal.aborted) sink.end();
    closed = true;
  };
  openWatch(cluster, resource, options, signal).then(
    (opened) => {
      if (closed || signal.aborted) return opened.ok && opened.body.release();
      if (!opened.ok) {
        sink.event({ type: 'ERROR', error: opened.error });
        return over();
      }
      const { resourcePath } = opened;
      const decoder = new WatchLineDecoder<T>(
        (event) => !closed && !signal.aborted && sink.event(event),
        { ...options, resourcePath, decodeObject: objectDecoder(resource, options.transform) },
      );
      body = opened.body;
      body.start({
        bytes: (buffer, start, end) => {
          if (closed || decoder.write(buffer, start, end)) return !closed;
          over();
          return false;
        },
        end: () => {
          if (closed) return;
          decoder.end();
          over();
        },
        fail: (cause) => {
          if (closed || signal.aborted) return;
          sink.event(streamFailed(resourcePath, cause));
          over();
        },
      });
      if (paused && !closed) body.pause();
    },
    // openWatch() reports failures as results; this guards against a bug, still as data.
    (cause) => {
      if (closed || signal.aborted) return;
      sink.event({ type: 'ERROR', error: networkError('', cause) });
      over();
    },
  );
  return {
    pause: () => {
      paused = true;
      body?.pause();
    },
    resume: () => {
      paused = false;
      if (!closed) body?.resume();
    },
    close: () => {
      closed = true;
      body?.release();
    },
  };
}
