import { WatchError } from '../../WatchError.js';
import type { Cluster, Logger } from '../../types.js';
import type { BodySink, ResponseBody } from '../../transport/body.js';
import { openStream } from './openStream.js';

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
 * {@link WatchError}, and hands `sink` to the body: its bytes straight from each read (no
 * promise, generator step or stream event per chunk), its end, and a body that breaks mid-way as
 * `fail` (SYSTEM_ERROR, 0, with {@link StreamRequest.broken}). The sink is the transport's
 * {@link BodySink}, the same type from the socket to the decoder; the body is its guard (at most
 * one of `end` and `fail`, nothing after `bytes` returned false, after `close()` or once `signal`
 * aborted), and this core guards the time before the body: a request that failed before it (its
 * status, a network failure, a {@link WatchError} in place of a request that did not validate)
 * is told to `fail`, asynchronously, unless it was closed or aborted first.
 *
 * ```
 * server:  --chunk--chunk--|        server 403:  |         server breaks:  --chunk--X
 * sink:    --bytes--bytes--end      sink:        fail      sink:           --bytes--fail
 * ```
 *
 * @example
 * const control = streamRequest(kc, { path, query, broken: 'the log stream failed' }, signal, {
 *   bytes: (buffer, start, end) => framer.write(buffer, start, end),
 *   end: () => framer.end(),
 *   fail: (error) => console.error(error.message),
 * });
 */
export function streamRequest(
  cluster: Cluster,
  request: StreamRequest | WatchError,
  signal: AbortSignal,
  sink: BodySink<WatchError>,
): StreamControl {
  let body: ResponseBody | undefined;
  /** Closed by the caller: a body that arrives after is released unread. */
  let closed = false;
  let paused = false;
  const failBeforeBody = (error: WatchError) => {
    if (!closed && !signal.aborted) sink.fail(error);
  };
  const opening = !(request instanceof WatchError)
    ? openStream(cluster, request.path, request.query, signal, {
        accept: request.accept,
        logger: request.logger,
      })
    : Promise.resolve({ ok: false as const, error: request });
  opening.then(
    (opened) => {
      if (closed || signal.aborted) return opened.ok && opened.body.release();
      if (!opened.ok) return failBeforeBody(opened.error);
      const { path, broken } = request as StreamRequest;
      body = opened.body;
      // The caller's sink as it is, but for the transport's cause of a broken body: one object
      // per request, nothing per chunk.
      body.start({
        bytes: (buffer, start, end) => sink.bytes(buffer, start, end),
        end: () => sink.end(),
        fail: (cause) => sink.fail(WatchError.network(path, cause, broken)),
      });
      // Starting resumes a body held paused for want of a sink (nothing once it is over).
      if (paused) body.pause();
    },
    // openStream() reports failures as results; this guards against a bug, still as data.
    (cause) =>
      failBeforeBody(WatchError.network(request instanceof WatchError ? '' : request.path, cause)),
  );
  return {
    pause: () => {
      paused = true;
      body?.pause();
    },
    resume: () => {
      paused = false;
      body?.resume();
    },
    close: () => {
      closed = true;
      body?.release();
    },
  };
}
