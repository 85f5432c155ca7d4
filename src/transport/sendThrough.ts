import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { ExchangeBody, type ConnectionUse, type ExchangeResult } from './body.js';
import type { OutgoingRequest } from './outgoingRequest.js';

/**
 * Sends one request through an undici dispatcher with a dispatch handler: body chunks go to the
 * consumer as undici hands them over (no stream, promise or event per chunk), `pause()` and
 * `resume()` are undici's flow control, and `release()` aborts the request, which on HTTP/1.1
 * closes its socket at any moment (before the head too). Resolves once the head arrived.
 */
export function sendThrough(
  dispatcher: Dispatcher,
  request: OutgoingRequest,
  hooks: ExchangeHooks,
): Promise<ExchangeResult> {
  return new Promise((settle) => {
    const exchange = new UndiciExchange(request.signal, settle, hooks, request.onSent);
    try {
      dispatcher.dispatch(
        {
          origin: request.origin,
          path: request.path,
          method: request.method,
          headers: request.headers,
          ...(request.body ? { body: request.body } : {}),
          ...(request.servername ? { servername: request.servername } : {}),
        } as Dispatcher.DispatchOptions,
        exchange,
      );
    } catch (cause) {
      exchange.onResponseError(undefined, cause as Error);
    }
  });
}

/** What the connection pool does for an exchange. */
export interface ExchangeHooks {
  /** Cancels the request while it runs, so that the server sees it at once. */
  cancel(): void;
  /** The exchange is over (ended, failed or released), called once. */
  done(): void;
}

class UndiciExchange extends ExchangeBody implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  /** See {@link ConnectionUse}: queued until undici starts it on a connection. */
  private use: ConnectionUse = 'queued';

  constructor(
    signal: AbortSignal,
    settle: (result: ExchangeResult) => void,
    private readonly hooks: ExchangeHooks,
    private readonly sent: (() => void) | undefined,
  ) {
    super(signal, settle);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Aborted while the request waited for a connection: it is not sent.
    if (this.phase === 'released') controller.abort(abortError());
    else {
      this.use = 'running';
      // undici writes the request right after this call, before anything awaiting it runs
      // (its onRequestSent does not reach handlers of this API).
      this.sent?.();
    }
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.controller = controller;
    // 100 Continue, 103 Early Hints...: the answer is still to come.
    if (this.phase !== 'waiting' || statusCode < 200) return;
    // Nothing is read past the head until a consumer starts reading.
    controller.pause();
    this.answer({ statusCode, statusText: statusMessage ?? '', headers });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.deliver(chunk);
  }

  onResponseEnd(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.finished();
    this.deliverEnd();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.finished();
    this.failWith(error);
  }

  pause(): void {
    if (this.phase === 'answered') this.controller?.pause();
  }

  resume(): void {
    if (this.sink && this.phase === 'answered') this.controller?.resume();
  }

  release(): void {
    if (!this.toReleased() || this.use === 'done') return;
    // Running: its socket is closed. Waiting for a connection: it is dropped when it gets one.
    if (this.use === 'running') this.hooks.cancel();
    else this.controller?.abort(abortError());
  }

  /** running (or queued) -> done: the connection is free again. */
  private finished(): void {
    if (this.use === 'done') return;
    this.use = 'done';
    this.hooks.done();
  }
}

function abortError(): Error {
  const error = new Error('the request was aborted');
  error.name = 'AbortError';
  return error;
}
