// The transport of the browser entry: WHATWG fetch + ReadableStream, behind the same interface as
// the undici one (exchange.ts). Node-free: it runs in any page (and in Node 20, whose global fetch
// the specs use to check it on loopback).
import type { ResolvedConnection } from '../types.js';
import type { BodySink, ExchangeResult, ResponseBody, ResponseHeaders } from './body.js';
import type { ExchangeRequest } from './exchange.js';
import { mergeHeaders } from './mergeHeaders.js';

/** Request headers that are the browser's to set (fetch drops or refuses them). */
const BROWSER_OWNED = new Set(['user-agent', 'accept-encoding', 'connection', 'host']);

/** What is said about a redirect, whose target a page may not even see. */
const REDIRECT_TEXT = 'Redirect (kube-rx does not follow redirects)';

/**
 * Sends one request with `fetch`, never following a redirect (`redirect: 'manual'`: a redirect is an
 * answer with its 3xx status, or 300 where the browser hides it, and no body). Resolves once the
 * answer's head arrived, with its body still to read: chunk by chunk from the stream's reader,
 * one read at a time, none while paused. `release()` (or `signal`) aborts the fetch, which
 * closes the connection of an HTTP/1.1 request or resets its HTTP/2 stream. A request that could
 * not be made is `failed`, never a rejection. TLS, proxies and the protocol are the browser's:
 * the connection's `tls`, `proxy` and `http2` are not used.
 *
 * @example
 * const result = await exchange({ server: location.origin }, { path: '/version', headers: {}, signal });
 */
export async function exchange(
  connection: ResolvedConnection,
  request: ExchangeRequest,
): Promise<ExchangeResult> {
  const { signal } = request;
  if (signal.aborted) return { kind: 'aborted' };
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  let response: Response;
  try {
    const url = new URL(connection.server);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`unsupported protocol ${url.protocol}`);
    const headers = requestHeaders(url, request.headers, connection.headers);
    const base = url.pathname.replace(/\/+$/, '');
    const answered = fetch(url.origin + base + request.path, {
      method: request.method ?? 'GET',
      headers,
      ...(request.body ? { body: request.body as unknown as RequestInit['body'] } : {}),
      signal: controller.signal,
      redirect: 'manual',
      // A watch or a list is never an answer to keep (`cache` is not in Node's RequestInit type).
      ...({ cache: 'no-store' } as RequestInit),
    });
    // A page's fetch runs off its thread: the request goes out whatever the page does next.
    request.onSent?.();
    response = await answered;
  } catch (cause) {
    signal.removeEventListener('abort', abort);
    return signal.aborted ? { kind: 'aborted' } : { kind: 'failed', cause };
  }
  const redirected = response.type === 'opaqueredirect' || isRedirect(response.status);
  const body = new FetchBody(redirected ? null : response.body, () => {
    signal.removeEventListener('abort', abort);
    controller.abort();
  });
  // A redirect has nothing to read: its connection is freed now, its (empty) body ends at start.
  if (redirected) controller.abort();
  else signal.addEventListener('abort', () => body.release(), { once: true });
  if (signal.aborted) return { kind: 'aborted' };
  return {
    kind: 'answer',
    head: {
      statusCode: redirected
        ? isRedirect(response.status)
          ? response.status
          : 300
        : response.status,
      statusText: redirected ? REDIRECT_TEXT : response.statusText,
      headers: responseHeaders(response.headers),
    },
    body,
  };
}

function isRedirect(status: number): boolean {
  return status >= 300 && status <= 399;
}

/** The request's headers, then the connection's (which win), and Basic credentials of the URL. */
function requestHeaders(
  url: URL,
  request: Record<string, string>,
  connection: Record<string, string> | undefined,
): Record<string, string> {
  const headers = mergeHeaders(url, request, connection);
  for (const name of BROWSER_OWNED) delete headers[name];
  return headers;
}

/**
 * The answer's headers. The browser has decoded the body already, so `content-encoding` and
 * `content-length` (which describe the bytes on the wire) are left out: nothing decodes twice.
 */
function responseHeaders(headers: Headers): ResponseHeaders {
  const out: ResponseHeaders = {};
  headers.forEach((value, name) => {
    if (name !== 'content-encoding' && name !== 'content-length') out[name] = value;
  });
  return out;
}

/** A fetch body read chunk by chunk into a {@link BodySink}. */
class FetchBody implements ResponseBody {
  private sink: BodySink | undefined;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Released, ended or failed: nothing more is delivered. */
  private closed = false;
  private paused = false;
  private reading = false;

  constructor(
    private readonly stream: ReadableStream<Uint8Array> | null,
    private readonly cancel: () => void,
  ) {}

  start(sink: BodySink): void {
    this.sink = sink;
    if (this.closed) return;
    if (!this.stream) {
      this.closed = true;
      this.cancel();
      return sink.end();
    }
    this.reader = this.stream.getReader();
    this.read();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.read();
  }

  release(): void {
    if (this.closed) return;
    this.closed = true;
    this.cancel();
    this.reader?.cancel().catch(() => undefined);
  }

  /** One read at a time, none while paused: the stream's queue is the backpressure. */
  private read(): void {
    if (this.closed || this.paused || this.reading || !this.reader || !this.sink) return;
    const sink = this.sink;
    this.reading = true;
    this.reader.read().then(
      ({ done, value }) => {
        this.reading = false;
        if (this.closed) return;
        if (done) {
          this.closed = true;
          this.cancel();
          return sink.end();
        }
        if (!sink.bytes(value, 0, value.length)) return this.release();
        this.read();
      },
      (cause: unknown) => {
        this.reading = false;
        if (this.closed) return;
        this.closed = true;
        this.cancel();
        sink.fail(cause);
      },
    );
  }
}
