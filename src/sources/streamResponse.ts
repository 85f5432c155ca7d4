import type { Subscriber, TeardownLogic } from 'rxjs';
import type { Readable } from 'node:stream';
import type { WatchError } from '../WatchError.js';
import { linkedAbort } from './abortLink.js';
import type { OpenResult } from './httpRequest.js';
import { networkError } from './statusError.js';

/** What a streaming source does with its one response. */
export interface StreamHandlers {
  /** The request failed before a body (not called once aborted). */
  failed(error: WatchError): void;
  /** A chunk of the body; false stops reading (the handler has ended the subscriber). */
  chunk(chunk: Buffer): boolean;
  /** The body ended. */
  end(): void;
  /** The body failed mid-way (not called once aborted or unsubscribed). */
  broken(cause: unknown): void;
}

/**
 * Runs one streaming request for one subscription: it owns the subscription's AbortController
 * (linked to `signal`, whose abort completes the subscriber quietly), feeds the body to the
 * handlers straight from its 'data' events (no promise or generator step per chunk), and
 * returns the teardown that aborts the request and frees the socket at any moment.
 */
export function streamResponse(
  subscriber: Subscriber<unknown>,
  signal: AbortSignal | undefined,
  open: (signal: AbortSignal) => Promise<OpenResult & { resourcePath?: string }>,
  handlers: StreamHandlers,
): TeardownLogic {
  if (signal?.aborted) return subscriber.complete();
  const { controller, unlink } = linkedAbort(signal, () => subscriber.complete());
  let release: (() => void) | undefined;
  let body: Readable | undefined;
  open(controller.signal).then(
    (opened) => {
      if (controller.signal.aborted) return opened.ok && opened.response.release();
      if (!opened.ok) return handlers.failed(opened.error);
      release = opened.response.release;
      if (subscriber.closed) return release();
      const stream = (body = opened.response.body);
      stream.on('data', (chunk: Buffer) => {
        if (!subscriber.closed && !handlers.chunk(chunk)) stream.removeAllListeners('data');
      });
      stream.once('end', () => handlers.end());
      stream.on('error', (cause) => {
        if (!controller.signal.aborted && !subscriber.closed) handlers.broken(cause);
      });
      stream.resume();
    },
    // open() reports failures as results; this guards against a bug, still as data.
    (cause) => handlers.failed(networkError('', cause)),
  );
  return () => {
    unlink();
    controller.abort();
    body?.removeAllListeners('data');
    release?.();
  };
}
