import http2 from 'node:http2';
import type { IncomingHttpHeaders } from 'node:http';
import { ExchangeBody, type ConnectionUse, type ExchangeResult } from './body.js';
import type { OutgoingRequest } from './outgoingRequest.js';
import { transportSettings } from './transportSettings.js';

const { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR, NGHTTP2_REFUSED_STREAM } = http2.constants;

/** Headers HTTP/2 forbids (RFC 9113 8.2.2) or carries as pseudo-headers. */
const CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

/**
 * One request as one HTTP/2 stream of a session. Body chunks go to the consumer as the stream
 * hands them over; `pause()`/`resume()` are the stream's flow control (only this stream stops);
 * `release()` resets the stream (RST_STREAM CANCEL): the server sees it at once, the session
 * lives on. `fail()` is how the session fails its streams (GOAWAY, a dead or broken session).
 * A stream the server refused (RST_STREAM REFUSED_STREAM before any answer: it was not
 * processed, RFC 9113 8.7) is handed to `onRefused`, when given, to be sent again; nothing is
 * settled for it here.
 */
export class Http2Exchange extends ExchangeBody {
  private stream: http2.ClientHttp2Stream | undefined;
  /** See {@link ConnectionUse}: queued until its stream opens on a session. */
  private use: ConnectionUse = 'queued';
  private headTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly request: OutgoingRequest,
    settle: (result: ExchangeResult) => void,
    /** Called once when the stream is over, whatever ended it. */
    private readonly onOver: () => void,
    /** Sends the request again after a refusal (absent: a refusal fails it as any reset). */
    private readonly onRefused?: () => void,
  ) {
    super(request.signal, settle);
  }

  /** Opens the stream on `session`. */
  open(session: http2.ClientHttp2Session): void {
    if (this.phase !== 'waiting') return this.over();
    const { method, body, path } = this.request;
    const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path };
    for (const [name, value] of Object.entries(this.request.headers)) {
      if (!CONNECTION_HEADERS.has(name)) headers[name] = value;
    }
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(headers, { endStream: body === undefined });
      if (body !== undefined) stream.end(body);
    } catch (cause) {
      // A header Node refuses (a control character in a credential, say): nothing was sent.
      return this.fail(cause);
    }
    this.stream = stream;
    this.use = 'running';
    // The session writes the HEADERS frame once this turn of the event loop is over.
    if (this.request.onSent) setImmediate(this.request.onSent);
    this.headTimer = setTimeout(
      () => this.fail(new Error('the response headers did not arrive in time (headers timeout)')),
      transportSettings.headersTimeoutMs,
    );
    this.headTimer.unref?.();
    stream.on('response', (head: IncomingHttpHeaders & http2.IncomingHttpStatusHeader) => {
      const statusCode = Number(head[':status']);
      // 1xx answers come as 'headers' events, not 'response': this is the answer.
      clearTimeout(this.headTimer);
      stream.pause();
      const responseHeaders: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(head)) {
        if (name[0] !== ':') responseHeaders[name] = value as string;
      }
      this.answer({ statusCode, statusText: '', headers: responseHeaders });
      // Only now: node:http2 emits 'response' on the next tick, while a DATA frame read in the
      // same socket read as its HEADERS is emitted at once to a flowing stream, before the head
      // is known, and would be lost (a 2xx write read as an empty body). Until this listener,
      // the stream is not flowing and node:http2 holds its data; paused above, it flows once the
      // consumer starts.
      stream.on('data', (chunk: Buffer) => this.deliver(chunk));
    });
    stream.on('end', () => {
      this.deliverEnd();
      this.over();
    });
    stream.on('error', (cause) => {
      if (!this.retryRefused(stream)) this.fail(cause);
    });
    stream.on('close', () => {
      if (this.retryRefused(stream)) return;
      // A stream reset by the server (or closed with its session) before its end.
      if (this.phase === 'waiting' || this.phase === 'answered') {
        const code = stream.rstCode;
        this.fail(
          new Error(
            code !== undefined && code !== NGHTTP2_NO_ERROR
              ? `the server reset the stream (HTTP/2 error code ${code})`
              : 'the stream closed before its end',
          ),
        );
      }
      this.over();
    });
  }

  /**
   * A stream refused before its answer goes back to `onRefused` (once): this exchange is
   * `refused` (over without settling, its abort listener gone), and the request is sent anew.
   */
  private retryRefused(stream: http2.ClientHttp2Stream): boolean {
    if (this.use === 'done' || !this.onRefused || stream.rstCode !== NGHTTP2_REFUSED_STREAM)
      return false;
    if (!this.refuse()) return false;
    this.over();
    this.onRefused();
    return true;
  }

  /** The request or its body failed: before the head a `failed` result, after it a broken body. */
  fail(cause: unknown): void {
    clearTimeout(this.headTimer);
    this.failWith(cause);
    this.closeStream();
    if (!this.stream) this.over();
  }

  pause(): void {
    if (this.phase === 'answered') this.stream?.pause();
  }

  resume(): void {
    if (this.sink && this.phase === 'answered') this.stream?.resume();
  }

  release(): void {
    if (!this.toReleased()) return;
    clearTimeout(this.headTimer);
    this.closeStream();
    if (!this.stream) this.over();
  }

  private closeStream(): void {
    const stream = this.stream;
    // RST_STREAM CANCEL unless the stream already ended both ways.
    if (stream && !stream.closed && !stream.destroyed) stream.close(NGHTTP2_CANCEL);
  }

  /** The stream (or its wait for one) is over: `onOver`, once. */
  private over(): void {
    if (this.use === 'done') return;
    this.use = 'done';
    clearTimeout(this.headTimer);
    this.signal.removeEventListener('abort', this.onAbort);
    this.onOver();
  }
}
