/**
 * Where a body's bytes go: the one sink type from the transport up to the decoder. The
 * transport's {@link ResponseBody} delivers to it; the request core (`streamRequest`) hands the
 * caller's sink to the body with only `fail` translated (a transport cause becomes a
 * `WatchError`: `Failure`); the watch's line decoder is one. The guard is the body's (see
 * {@link ResponseBody}): a sink never checks whether it may still be called.
 */
export interface BodySink<Failure = unknown> {
  /**
   * Bytes `buffer[start, end)`, valid only during the call (they may live in a reused read
   * buffer); false stops the delivery and releases the request.
   */
  bytes(buffer: Uint8Array, start: number, end: number): boolean;
  /** The body is complete. */
  end(): void;
  /** The body failed mid-way. */
  fail(cause: Failure): void;
}

/**
 * The open body of an answer, whatever protocol carries it. It is the one guard of its sink:
 * the sink hears at most one of `end` and `fail`, and nothing after it, after `bytes` returned
 * false, after `release()` or once the request's signal aborted (a call under way, in which
 * either happened, is the sink's to finish).
 */
export interface ResponseBody {
  /** Starts delivering to `sink`, synchronously from each chunk. Call once. */
  start(sink: BodySink): void;
  /** Stops reading (backpressure) until `resume()`; nothing once the body is over. */
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
 * Where one exchange is, as its protocol adapter ({@link ExchangeBody}) sees it. Each event is a
 * method of ExchangeBody (or of the adapter's `release()`); what is told happens once, on the
 * transition, and bytes are delivered in `answered` only:
 *
 * | from      | event                                   | to        | told                               |
 * |-----------|-----------------------------------------|-----------|------------------------------------|
 * | waiting   | the head arrives (`answer`)             | answered  | settles `answer`, with this body   |
 * | waiting   | the request fails (`failWith`)          | failed    | settles `failed`                   |
 * | waiting   | `signal` aborts (`release`)             | released  | settles `aborted`                  |
 * | waiting   | HTTP/2 refused the stream (`refuse`)    | refused   | nothing: the request is sent anew  |
 * | answered  | the body ends (`deliverEnd`)            | ended     | the sink's `end` (held until start)  |
 * | answered  | the body breaks (`failWith`)            | failed    | the sink's `fail` (held until start) |
 * | answered  | `release()`, or `signal` aborts         | released  | nothing more                       |
 * | ended, failed, released, refused | any            | (stays)   | nothing                            |
 *
 * @example
 * if (exchange.phase === 'answered') exchange.resume();
 */
export type ExchangePhase = 'waiting' | 'answered' | 'ended' | 'failed' | 'released' | 'refused';

/**
 * How an exchange uses its connection (an undici request, an HTTP/2 stream), beside its
 * {@link ExchangePhase}: the connection is told once when it is free again.
 *
 * | from    | event                                                  | to      |
 * |---------|--------------------------------------------------------|---------|
 * | queued  | the request starts on a connection, or its stream opens | running |
 * | queued  | it fails or is dropped before that                     | done    |
 * | running | the response ends or fails, the stream closes          | done    |
 *
 * @example
 * let use: ConnectionUse = 'queued';
 */
export type ConnectionUse = 'queued' | 'running' | 'done';

/**
 * The answer to one request as its protocol adapter sees it, in {@link ExchangePhase}s: settled
 * once (its head, a failure or an abort of `signal`), then its body. What arrives before the
 * consumer calls `start()` is held (chunks, then the end or the failure) and handed over then;
 * nothing is told once the consumer released it. Adapters implement the flow control and
 * `release()`, which begins with {@link ExchangeBody.toReleased}.
 */
export abstract class ExchangeBody implements ResponseBody {
  /** See {@link ExchangePhase}. */
  phase: ExchangePhase = 'waiting';
  protected sink: BodySink | undefined;
  private early: Uint8Array[] = [];
  /** Why the body broke (phase `failed` after the head), for a sink that starts later. */
  private failure: unknown;
  /** Settles the request once; undefined after. */
  private settle: ((result: ExchangeResult) => void) | undefined;

  constructor(
    protected readonly signal: AbortSignal,
    settle: (result: ExchangeResult) => void,
  ) {
    this.settle = settle;
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  start(sink: BodySink): void {
    this.sink = sink;
    if (this.phase === 'released') return;
    const early = this.early;
    this.early = [];
    for (const chunk of early) {
      if (!sink.bytes(chunk, 0, chunk.length)) return this.release();
    }
    if (this.phase === 'failed') sink.fail(this.failure);
    else if (this.phase === 'ended') sink.end();
    else this.resume();
  }

  abstract pause(): void;
  abstract resume(): void;
  abstract release(): void;

  /** waiting -> answered: the head arrived, the request settles with this body. */
  protected answer(head: ResponseHead): void {
    if (this.phase !== 'waiting') return;
    this.phase = 'answered';
    this.settleWith({ kind: 'answer', head, body: this });
  }

  /** A chunk from the protocol: delivered, or held until `start()`. */
  protected deliver(chunk: Uint8Array): void {
    if (this.phase !== 'answered') return;
    if (!this.sink) {
      this.early.push(chunk);
      this.pause();
    } else if (!this.sink.bytes(chunk, 0, chunk.length)) this.release();
  }

  /** answered -> ended. */
  protected deliverEnd(): void {
    if (this.phase !== 'answered') return;
    this.phase = 'ended';
    this.sink?.end();
  }

  /** waiting -> failed (a `failed` result), or answered -> failed (a broken body). */
  protected failWith(cause: unknown): void {
    if (this.phase === 'waiting') {
      this.phase = 'failed';
      this.settleWith({ kind: 'failed', cause });
    } else if (this.phase === 'answered') {
      this.phase = 'failed';
      this.failure = cause;
      this.sink?.fail(cause);
    }
  }

  /**
   * waiting or answered -> released (from waiting the request settles `aborted`); false when it
   * was over already, and the adapter has nothing to cancel.
   */
  protected toReleased(): boolean {
    const from = this.phase;
    if (from !== 'waiting' && from !== 'answered') return false;
    this.phase = 'released';
    this.signal.removeEventListener('abort', this.onAbort);
    if (from === 'waiting') this.settleWith({ kind: 'aborted' });
    return true;
  }

  /** waiting -> refused: given up without settling, to be sent anew (HTTP/2 REFUSED_STREAM). */
  protected refuse(): boolean {
    if (this.phase !== 'waiting') return false;
    this.phase = 'refused';
    this.signal.removeEventListener('abort', this.onAbort);
    return true;
  }

  protected readonly onAbort = (): void => this.release();

  private settleWith(result: ExchangeResult): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(result);
  }
}
