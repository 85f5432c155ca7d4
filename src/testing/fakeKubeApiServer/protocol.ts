import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { constants as h2 } from 'node:http2';
import type { Http2ServerRequest, ServerHttp2Stream } from 'node:http2';

/** A request over HTTP/1.1 or HTTP/2 (node's compatibility API has the same shape for both). */
export type Request = IncomingMessage | Http2ServerRequest;

/**
 * What the handlers use of a response: the members `ServerResponse` and `Http2ServerResponse`
 * share, so no handler needs to know which protocol it answers.
 */
export interface Reply {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  writeHead(status: number, headers?: OutgoingHttpHeaders): this;
  write(chunk: string | Uint8Array, callback?: (err?: Error | null) => void): boolean;
  end(chunk?: string | Uint8Array): this;
  flushHeaders(): void;
  on(event: 'close', listener: () => void): this;
  once(event: 'drain', listener: () => void): this;
}

/** Headers HTTP/2 forbids (RFC 9113 8.2.2); node throws when a response carries one. */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

/** The HTTP/2 stream of a reply, or undefined over HTTP/1.1. */
export function streamOf(res: Reply): ServerHttp2Stream | undefined {
  return (res as { stream?: ServerHttp2Stream }).stream;
}

/** The request came over HTTP/2. */
export function isHttp2(req: Request): req is Http2ServerRequest {
  return req.httpVersionMajor === 2;
}

/** Request headers without HTTP/2 pseudo-headers (`:path`, `:method`...). */
export function plainHeaders(req: Request): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) if (!k.startsWith(':')) headers[k] = v;
  return headers;
}

/**
 * Removes the headers HTTP/2 forbids (`Connection: close` means nothing there: the stream
 * ends, the session lives on).
 */
export function withoutConnectionHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!CONNECTION_HEADERS.has(k.toLowerCase())) out[k] = v;
  }
  return out;
}

/** The response can no longer be written (its socket or stream is gone). */
export function isGone(res: Reply): boolean {
  const stream = streamOf(res);
  if (stream !== undefined) return stream.destroyed;
  return (res as { destroyed?: boolean }).destroyed === true;
}

/**
 * Ends a response abruptly once what was written is flushed, the way a crashed server or a cut
 * network ends it: over HTTP/1.1 the socket closes without the final chunk; over HTTP/2 the
 * stream is reset (RST_STREAM INTERNAL_ERROR) and the session lives on.
 */
export function abortReply(res: Reply, code: number = h2.NGHTTP2_INTERNAL_ERROR): void {
  const stream = streamOf(res);
  if (stream !== undefined) {
    if (stream.destroyed) return;
    markServerReset(stream);
    // An empty write completes after every earlier write, so the reset follows the data.
    stream.write(Buffer.alloc(0), () => {
      if (!stream.destroyed) stream.close(code);
    });
    return;
  }
  const socket = (res as { socket?: { destroySoon(): void } | null }).socket;
  if (socket) socket.destroySoon();
  else (res as unknown as { destroy(): void }).destroy();
}

const serverResets = new WeakSet<ServerHttp2Stream>();

/** Notes that the server, not the client, resets `stream`. */
export function markServerReset(stream: ServerHttp2Stream): void {
  serverResets.add(stream);
}

/** Whether the server reset `stream` ({@link markServerReset}). */
export function resetByServer(stream: ServerHttp2Stream): boolean {
  return serverResets.has(stream);
}
