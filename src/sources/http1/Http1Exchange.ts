import net from 'node:net';
import tls from 'node:tls';
import type { WatchError } from '../../WatchError.js';
import { MAX_ERROR_BODY_BYTES, aborted, type PreparedRequest } from '../httpRequest.js';
import { answerToWatchError, networkError } from '../statusError.js';
import type { BodySink, StreamingBody, StreamOpenResult } from '../streamingBody.js';
import { requestHead } from './requestHead.js';
import { ResponseParser, type ResponseHead } from './ResponseParser.js';

/** Read buffer of a plain connection: Node's own read size. */
const PLAIN_READ_BYTES = 64 * 1024;
/** Read buffer of a TLS connection: one TLS record decrypts to at most 16 KiB. */
const TLS_READ_BYTES = 16 * 1024;

type Phase = 'head' | 'error-body' | 'body' | 'closed';

/**
 * Sends a prepared GET on a connection of its own, through Node's `net`/`tls` with the agent's
 * options (CA, client certificate, verification, server name), and reads the answer with
 * {@link ResponseParser}. Node reads into one buffer per connection (`onread`), and body bytes go
 * from that buffer to the sink synchronously: no allocation, stream event or promise per read
 * or per chunk. Resolves once the head arrived: a {@link StreamingBody} for a 2xx answer,
 * otherwise the answer's {@link WatchError} (its Status read from at most 64 KiB of body).
 */
export function http1Stream(
  request: PreparedRequest,
  signal: AbortSignal,
): Promise<StreamOpenResult> {
  // An abort that came before the exchange listens for one: nothing is sent.
  if (signal.aborted) return Promise.resolve(aborted(request.resourcePath));
  let target: URL;
  let head: string;
  try {
    target = new URL(request.url);
    head = requestHead(target, request.headers);
  } catch (cause) {
    return Promise.resolve({ ok: false, error: networkError(request.resourcePath, cause) });
  }
  return new Promise((settle) => {
    try {
      new Http1Exchange(request, target, head, signal, settle);
    } catch (cause) {
      // Options Node refuses at once, such as a client certificate it cannot read.
      settle({ ok: false, error: networkError(request.resourcePath, cause) });
    }
  });
}

class Http1Exchange implements StreamingBody {
  private phase: Phase = 'head';
  private readonly socket: net.Socket;
  private readonly parser: ResponseParser;
  private sink: BodySink | undefined;
  /** Body bytes that arrived with the head, before `start()` (copied: the read buffer is reused). */
  private early: Buffer[] = [];
  private earlyEnd = false;
  private earlyFailure: unknown;
  private answer: ResponseHead | undefined;
  private errorBody: Buffer[] = [];
  private errorBytes = 0;
  private settled = false;

  constructor(
    private readonly request: PreparedRequest,
    target: URL,
    head: string,
    private readonly signal: AbortSignal,
    private readonly settle: (result: StreamOpenResult) => void,
  ) {
    this.parser = new ResponseParser({
      head: (answer) => this.onHead(answer),
      body: (buffer, start, end) => this.onBody(buffer, start, end),
      end: () => this.onEnd(),
    });
    const secure = target.protocol === 'https:';
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(target.port) || (secure ? 443 : 80);
    const buffer = Buffer.allocUnsafe(secure ? TLS_READ_BYTES : PLAIN_READ_BYTES);
    const onread = {
      buffer,
      callback: (bytes: number) => (this.onRead(buffer, bytes), true),
    };
    // As an Agent connects: its options (TLS material, family, lookup...) under the target's.
    const options = { ...(request.agent as unknown as { options?: object }).options } as Record<
      string,
      unknown
    >;
    options.path = options.socketPath ?? null;
    this.socket = secure
      ? tls.connect({
          ...options,
          host,
          port,
          servername: (options.servername as string) || (net.isIP(host) ? undefined : host),
          onread,
        } as tls.ConnectionOptions)
      : net.connect({ ...options, host, port, onread } as net.NetConnectOpts);
    this.socket.on('error', (cause) => this.onFailure(cause));
    this.socket.on('end', () => this.onClose());
    this.socket.on('close', () => this.onClose());
    this.socket.write(head, 'latin1');
    signal.addEventListener('abort', this.abort, { once: true });
  }

  start(sink: BodySink): void {
    this.sink = sink;
    const early = this.early;
    this.early = [];
    for (const chunk of early) if (!sink.bytes(chunk, 0, chunk.length)) return;
    if (this.earlyFailure !== undefined) sink.fail(this.earlyFailure);
    else if (this.earlyEnd) sink.end();
    else this.socket.resume();
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    if (this.sink && this.phase === 'body') this.socket.resume();
  }

  release = (): void => {
    this.phase = 'closed';
    this.signal.removeEventListener('abort', this.abort);
    this.socket.destroy();
  };

  private readonly abort = (): void => {
    if (!this.settled) this.finish(aborted(this.request.resourcePath));
    this.release();
  };

  private finish(result: StreamOpenResult): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(result);
  }

  private onRead(buffer: Buffer, bytes: number): void {
    if (this.phase === 'closed') return;
    try {
      this.parser.write(buffer, 0, bytes);
    } catch (cause) {
      this.onFailure(cause);
    }
  }

  private onHead(answer: ResponseHead): void {
    if (answer.statusCode >= 200 && answer.statusCode <= 299) {
      this.phase = 'body';
      // Until a consumer starts reading, the socket holds what comes next.
      this.socket.pause();
      this.finish({ ok: true, body: this });
    } else {
      this.phase = 'error-body';
      this.answer = answer;
    }
  }

  private onBody(buffer: Buffer, start: number, end: number): boolean {
    if (this.phase === 'body') {
      if (this.sink) return this.sink.bytes(buffer, start, end);
      this.early.push(Buffer.from(buffer.subarray(start, end)));
      return true;
    }
    if (this.phase !== 'error-body') return false;
    const take = Math.min(end - start, MAX_ERROR_BODY_BYTES - this.errorBytes);
    this.errorBody.push(Buffer.from(buffer.subarray(start, start + take)));
    this.errorBytes += take;
    if (this.errorBytes < MAX_ERROR_BODY_BYTES) return true;
    this.errorAnswer();
    return false;
  }

  private onEnd(): void {
    if (this.phase === 'error-body') return this.errorAnswer();
    if (this.phase !== 'body') return;
    // The answer is complete: the connection has nothing more to give.
    this.phase = 'closed';
    this.socket.destroy();
    if (this.sink) this.sink.end();
    else this.earlyEnd = true;
  }

  /** The socket ended or closed: a body read until close is complete, anything else cut short. */
  private onClose(): void {
    if (this.phase === 'closed') return;
    try {
      this.parser.finish();
      if (!this.parser.done) throw new Error('the connection closed');
    } catch (cause) {
      this.onFailure(cause);
    }
  }

  private onFailure(cause: unknown): void {
    const phase = this.phase;
    if (phase === 'closed') return;
    if (phase === 'error-body') return this.errorAnswer();
    this.release();
    if (phase === 'head') {
      const { resourcePath } = this.request;
      return this.finish(
        this.signal.aborted
          ? aborted(resourcePath)
          : { ok: false, error: networkError(resourcePath, cause) },
      );
    }
    if (this.sink) this.sink.fail(cause);
    else this.earlyFailure = cause;
  }

  /** A non-2xx answer: its error, from its status, headers and the start of its body. */
  private errorAnswer(): void {
    const answer = this.answer!;
    const body = Buffer.concat(this.errorBody).toString('utf8');
    this.errorBody = [];
    this.release();
    const error: WatchError = answerToWatchError(
      {
        statusCode: answer.statusCode,
        statusText: answer.statusText,
        retryAfter: answer.headers.get('retry-after'),
        body,
      },
      this.request.resourcePath,
    );
    this.finish({ ok: false, error });
  }
}
