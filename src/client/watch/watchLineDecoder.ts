import { WatchError } from '../../WatchError.js';
import type { BodySink } from '../../transport/body.js';
import { transformFailure } from './transformFailure.js';
import type { Logger, ObjectTransform, WatchEvent } from '../../types.js';
import { LineFramer } from './lineFramer.js';

/** Default bound on one line of a watch stream: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const TOO_LONG = 'a line of the watch stream is longer than maxLineBytes';

/** Who hears what a {@link WatchLineDecoder} decodes: events, then the end of the watch. */
export interface WatchConsumer<T> {
  /** One event, synchronously from the decoder; false once the consumer is gone. */
  event(event: WatchEvent<T>): boolean;
  /**
   * The watch is over, told once: the server ended it, it failed (its ERROR event came first),
   * or decoding stopped (a line too long, a bad line with `strict`, the consumer gone).
   */
  end(): void;
}

/** Options of a {@link WatchLineDecoder}. */
export interface WatchLineDecoderConfig {
  resourcePath: string;
  strict?: boolean;
  maxLineBytes?: number;
  logger?: Logger;
  /**
   * Runs on the object of each ADDED, MODIFIED and DELETED event (metadata reduction, then the
   * caller's transform); one that throws makes the line unreadable.
   */
  decodeObject?: ObjectTransform;
}

/**
 * Turns the bytes of a watch response into events, synchronously, chunk by chunk (framing by
 * {@link LineFramer}): the {@link BodySink} the request core hands to the body, so the bytes go
 * from the socket's read to the framer through no other layer. The parsed JSON object is the
 * event itself (its `resourceVersion` added), so an event costs no allocation beyond what
 * `JSON.parse` makes. The consumer's `event` returning false stops the decoding at once (its
 * consumer is gone): `bytes` returns false. A request that fails, before its body or mid-way, is
 * one ERROR event; the consumer hears `end` once, whatever ended the watch.
 *
 * @example
 * streamRequest(kc, request, signal, new WatchLineDecoder(consumer, { resourcePath: request.path }));
 */
export class WatchLineDecoder<T> implements BodySink<WatchError> {
  /** True once the stream must end: a line too long, or a bad line in strict mode. */
  private done = false;
  /** True once the consumer was told `end`. */
  private ended = false;
  private readonly framer: LineFramer;
  private readonly resourcePath: string;
  private readonly strict: boolean;
  private readonly logger: Logger | undefined;
  private readonly decodeObject: ObjectTransform | undefined;

  constructor(
    private readonly consumer: WatchConsumer<T>,
    {
      resourcePath,
      strict = false,
      maxLineBytes = DEFAULT_MAX_LINE_BYTES,
      logger,
      decodeObject,
    }: WatchLineDecoderConfig,
  ) {
    this.decodeObject = decodeObject;
    this.resourcePath = resourcePath;
    this.strict = strict;
    this.logger = logger;
    this.framer = new LineFramer((line) => this.line(line), { maxLineBytes });
  }

  /**
   * Decodes every complete line of `chunk[start, end)` (read only during the call); returns
   * false once the stream must end (and tells the consumer its end).
   */
  bytes(chunk: Uint8Array, start: number, end: number): boolean {
    if (this.done) return false;
    if (this.framer.write(chunk, start, end)) return true;
    if (this.framer.tooLong) this.parseError(TOO_LONG);
    this.over();
    return false;
  }

  /** The body ended: a last line without a newline still counts (and is bounded too). */
  end(): void {
    if (!this.done && !this.framer.end() && this.framer.tooLong) this.parseError(TOO_LONG);
    this.over();
  }

  /** The request failed (before its body or mid-way): one ERROR event, then the end. */
  fail(error: WatchError): void {
    if (!this.ended) this.consumer.event({ type: 'ERROR', error });
    this.over();
  }

  private over(): void {
    if (this.ended) return;
    this.ended = true;
    this.consumer.end();
  }

  private parseError(message: string): void {
    this.done = true;
    this.consumer.event({ type: 'ERROR', error: WatchError.parse(this.resourcePath, message) });
  }

  /** Decodes one line; false when the stream must end. */
  private line(text: string): boolean {
    // A watch event is a JSON object: anything else is rejected without the cost of a throw.
    const first = text.charCodeAt(0);
    if (first !== 123 /* { */ && text.trimStart()[0] !== '{')
      return this.invalid('not a JSON object', text);
    let data: any;
    try {
      data = JSON.parse(text);
    } catch {
      return this.invalid('not JSON', text);
    }
    if (typeof data !== 'object' || data === null) return this.invalid('not an object', text);
    const object = data.object;
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      return this.invalid('no object', text);
    }
    switch (data.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
      case 'BOOKMARK': {
        // The cursor is the server's: taken before a transform could change the metadata.
        const version = object.metadata?.resourceVersion;
        data.resourceVersion = typeof version === 'string' ? version : undefined;
        if (this.decodeObject !== undefined && data.type !== 'BOOKMARK') {
          try {
            data.object = this.decodeObject(object);
          } catch (cause) {
            return this.invalid(transformFailure(cause), text);
          }
        }
        return this.consumer.event(data) !== false;
      }
      case 'ERROR':
        return (
          this.consumer.event({
            type: 'ERROR',
            error: WatchError.fromStatus(object, this.resourcePath),
          }) !== false
        );
      default:
        return this.invalid('unknown event type', text);
    }
  }

  private invalid(why: string, text: string): boolean {
    // The line itself is not logged: a hostile server could make it huge, and it is not ours to print.
    const message = `skipped a line that is not a watch event (${why}, ${text.length} characters) on ${this.resourcePath}`;
    if (!this.strict) {
      this.logger?.warn(message);
      return true;
    }
    this.parseError(message.replace('skipped a line', 'a line'));
    return false;
  }
}
