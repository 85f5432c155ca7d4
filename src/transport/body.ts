/** Where a {@link ResponseBody} delivers its bytes. */
export interface BodySink {
  /** Bytes `buffer[start, end)`, valid only during the call; false stops the delivery. */
  bytes(buffer: Uint8Array, start: number, end: number): boolean;
  /** The body is complete. */
  end(): void;
  /** The body failed mid-way (never called after `release()`). */
  fail(cause: unknown): void;
}

/** The open body of an answer, whatever protocol carries it. */
export interface ResponseBody {
  /** Starts delivering to `sink`, synchronously from each chunk. Call once. */
  start(sink: BodySink): void;
  /** Stops reading (backpressure) until `resume()`. */
  pause(): void;
  resume(): void;
  /** Cancels the request if it is still running (socket closed, or stream reset); idempotent. */
  release(): void;
}

/** Response headers, names in lower case (Node's `IncomingHttpHeaders` is one). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The status line and headers of an answer. */
export interface ResponseHead {
  statusCode: number;
  statusText: string;
  headers: ResponseHeaders;
}

/** What one request came to. */
export type ExchangeResult =
  | { kind: 'answer'; head: ResponseHead; body: ResponseBody }
  | { kind: 'failed'; cause: unknown }
  | { kind: 'aborted' };

/** One header's value as one string (repeated headers joined). */
export function headerValue(head: ResponseHead, name: string): string | undefined {
  const value = head.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Holds what a protocol delivers before the consumer calls `start()`, and hands the rest over
 * as it comes. Protocol adapters extend it and implement the flow control.
 */
export abstract class BufferedBody implements ResponseBody {
  protected sink: BodySink | undefined;
  /** Released, ended or failed: nothing more is delivered. */
  protected closed = false;
  private early: Uint8Array[] = [];
  private earlyEnd = false;
  private earlyFailure: { cause: unknown } | undefined;

  start(sink: BodySink): void {
    this.sink = sink;
    const early = this.early;
    this.early = [];
    for (const chunk of early) {
      if (!sink.bytes(chunk, 0, chunk.length)) return this.release();
    }
    if (this.earlyFailure) sink.fail(this.earlyFailure.cause);
    else if (this.earlyEnd) sink.end();
    else this.resume();
  }

  abstract pause(): void;
  abstract resume(): void;
  abstract release(): void;

  /** A chunk from the protocol: delivered, or held until `start()`. */
  protected deliver(chunk: Uint8Array): void {
    if (this.closed) return;
    if (!this.sink) {
      this.early.push(chunk);
      this.pause();
    } else if (!this.sink.bytes(chunk, 0, chunk.length)) this.release();
  }

  protected deliverEnd(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.sink) this.sink.end();
    else this.earlyEnd = true;
  }

  protected deliverFailure(cause: unknown): void {
    if (this.closed) return;
    this.closed = true;
    if (this.sink) this.sink.fail(cause);
    else this.earlyFailure = { cause };
  }
}

/**
 * The answer to one request as its protocol adapter sees it: settled once (its head, a failure
 * or an abort of `signal`), then its body. A failure after the head breaks the body instead,
 * and nothing is told once the consumer released it.
 */
export abstract class ExchangeBody extends BufferedBody {
  /** The consumer (or `signal`) gave the exchange up. */
  protected released = false;
  private settled = false;

  constructor(
    protected readonly signal: AbortSignal,
    private readonly settle: (result: ExchangeResult) => void,
  ) {
    super();
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The head arrived: the request settles with this body. */
  protected answer(head: ResponseHead): void {
    this.finish({ kind: 'answer', head, body: this });
  }

  /** The request or its body failed: before the head a `failed` result, after it a broken body. */
  protected failWith(cause: unknown): void {
    if (!this.settled) {
      this.finish(this.released ? { kind: 'aborted' } : { kind: 'failed', cause });
    } else if (!this.released) this.deliverFailure(cause);
  }

  protected readonly onAbort = (): void => {
    this.release();
    this.finish({ kind: 'aborted' });
  };

  private finish(result: ExchangeResult): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(result);
  }
}
