import type { Subscriber, TeardownLogic } from 'rxjs';
import type { WatchError } from '../WatchError.js';
import { linkedAbort } from './linkedAbort.js';
import { networkError } from '../client/statusError.js';
import type { StreamingBody, StreamOpenResult } from '../client/request.js';

/** What a streaming source does with its one response. */
export interface StreamHandlers {
  /** The request failed before a body (not called once aborted). */
  failed(error: WatchError): void;
  /**
   * Body bytes `buffer[start, end)`, valid only during the call; false stops reading (the
   * handler has ended the subscriber).
   */
  bytes(buffer: Uint8Array, start: number, end: number): boolean;
  /** The body ended. */
  end(): void;
  /** The body failed mid-way (not called once aborted or unsubscribed). */
  broken(cause: unknown): void;
}

/**
 * Runs one streaming request for one subscription: it owns the subscription's AbortController
 * (linked to `signal`, whose abort completes the subscriber quietly), feeds the body to the
 * handlers straight from each read (no promise, generator step or stream event per chunk), and
 * returns the teardown that aborts the request and frees the socket at any moment.
 */
export function streamResponse(
  subscriber: Subscriber<unknown>,
  signal: AbortSignal | undefined,
  open: (signal: AbortSignal) => Promise<StreamOpenResult>,
  handlers: StreamHandlers,
): TeardownLogic {
  if (signal?.aborted) return subscriber.complete();
  const { controller, unlink } = linkedAbort(signal, () => subscriber.complete());
  let body: StreamingBody | undefined;
  open(controller.signal).then(
    (opened) => {
      if (controller.signal.aborted) return opened.ok && opened.body.release();
      if (!opened.ok) return handlers.failed(opened.error);
      body = opened.body;
      body.start({
        bytes: (buffer, start, end) => !subscriber.closed && handlers.bytes(buffer, start, end),
        end: () => handlers.end(),
        fail: (cause) => {
          if (!controller.signal.aborted && !subscriber.closed) handlers.broken(cause);
        },
      });
    },
    // open() reports failures as results; this guards against a bug, still as data.
    (cause) => handlers.failed(networkError('', cause)),
  );
  return () => {
    unlink();
    controller.abort();
    body?.release();
  };
}
