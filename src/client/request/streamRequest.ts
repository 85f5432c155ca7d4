import { WatchError } from '../../WatchError.js';
import type { Cluster, Logger } from '../../types.js';
import type { ResponseBody } from '../../transport/body.js';
import { openStream } from './request.js';

/** One streaming GET: a watch, a watch of Tables, a followed log. */
export interface StreamRequest {
  /** The resource path, validated and encoded by the caller. */
  path: string;
  query: URLSearchParams;
  /** The Accept header (plain JSON when absent). */
  accept?: string;
  /** What a body that breaks mid-way is called in its error (`the watch stream failed`). */
  broken: string;
  /** Where resolving the connection may warn (credentials withheld over plain HTTP). */
  logger?: Logger;
}

/** What reads one streaming answer. */
export interface StreamReader {
  /**
   * Body bytes `buffer[start, end)`, valid only during the call; false stops the reading (the
   * reader is done, or its consumer is gone) and releases the request.
   */
  bytes(buffer: Uint8Array, start: number, end: number): boolean;
  /** The body ended. */
  end(): void;
  /**
   * The request failed: before a body (its status as a {@link WatchError}, a network failure,
   * an invalid request), or mid-way (SYSTEM_ERROR, 0, with {@link StreamRequest.broken}).
   */
  failed(error: WatchError): void;
}

/** A running streaming request. */
export interface StreamControl {
  /** Stops reading from the server (backpressure) until `resume()`. */
  pause(): void;
  resume(): void;
  /** Cancels the request at any moment and frees its connection; idempotent. */
  close(): void;
}

/**
 * The one streaming request core of kube-rx, under watches (`fromWatch`, `watchResource`, the
 * command's watch of Tables) and pod logs: it sends the GET (credentials resolved afresh, the
 * Accept header, the query), maps a non-2xx answer or a network failure to a
 * {@link WatchError}, and feeds the body's bytes to `reader` straight from each read (no
 * promise, generator step or stream event per chunk). The reader hears at most one of `end` and
 * `failed`, nothing after `bytes` returned false, and nothing once `close()` was called or
 * `signal` aborted. A {@link WatchError} in place of the request (it did not validate) is told
 * to `failed` as a failure of the request would be: asynchronously.
 *
 * ```
 * server:  --chunk--chunk--|        server 403:  |         server breaks:  --chunk--X
 * reader:  --bytes--bytes--end      reader:      failed    reader:         --bytes--failed
 * ```
 *
 * @example
 * const control = streamRequest(kc, { path, query, broken: 'the log stream failed' }, signal, {
 *   bytes: (buffer, start, end) => framer.write(buffer, start, end),
 *   end: () => framer.end(),
 *   failed: (error) => console.error(error.message),
 * });
 */
export function streamRequest(
  cluster: Cluster,
  request: StreamRequest | WatchError,
  signal: AbortSignal,
  reader: StreamReader,
): StreamControl {
  let body: ResponseBody | undefined;
  /** Closed, aborted, or the reader was told its end: nothing more reaches the reader. */
  let over = false;
  let paused = false;
  const live = () => !over && !signal.aborted;
  const fail = (error: WatchError) => {
    if (!live()) return;
    over = true;
    reader.failed(error);
  };
  const opening = !(request instanceof WatchError)
    ? openStream(cluster, request.path, request.query, signal, {
        accept: request.accept,
        logger: request.logger,
      })
    : Promise.resolve({ ok: false as const, error: request });
  opening.then(
    (opened) => {
      if (!live()) return opened.ok && opened.body.release();
      if (!opened.ok) return fail(opened.error);
      const { path, broken } = request as StreamRequest;
      body = opened.body;
      body.start({
        bytes: (buffer, start, end) => {
          if (!live()) return false;
          if (reader.bytes(buffer, start, end)) return live();
          over = true;
          return false;
        },
        end: () => {
          if (!live()) return;
          over = true;
          reader.end();
        },
        fail: (cause) => fail(WatchError.network(path, cause, broken)),
      });
      if (paused && !over) body.pause();
    },
    // openStream() reports failures as results; this guards against a bug, still as data.
    (cause) => fail(WatchError.network(request instanceof WatchError ? '' : request.path, cause)),
  );
  return {
    pause: () => {
      paused = true;
      body?.pause();
    },
    resume: () => {
      paused = false;
      if (!over) body?.resume();
    },
    close: () => {
      over = true;
      body?.release();
    },
  };
}
