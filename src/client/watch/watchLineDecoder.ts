import { WatchError } from '../../WatchError.js';
import { transformFailure } from './transformFailure.js';
import type { Logger, ObjectTransform, WatchEvent } from '../../types.js';
import { LineFramer } from './lineFramer.js';

/** Default bound on one line of a watch stream: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const TOO_LONG = 'a line of the watch stream is longer than maxLineBytes';

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
 * {@link LineFramer}). The parsed JSON object is the event itself (its `resourceVersion` added),
 * so an event costs no allocation beyond what `JSON.parse` makes. `emit` returning `false` stops
 * the decoding at once (its consumer is gone): `write` returns false.
 */
export class WatchLineDecoder<T> {
  /** True once the stream must end: a line too long, or a bad line in strict mode. */
  private done = false;
  private readonly framer: LineFramer;
  private readonly resourcePath: string;
  private readonly strict: boolean;
  private readonly logger: Logger | undefined;
  private readonly decodeObject: ObjectTransform | undefined;

  constructor(
    private readonly emit: (event: WatchEvent<T>) => boolean | void,
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
   * false once the stream must end.
   */
  write(chunk: Uint8Array, start = 0, end = chunk.length): boolean {
    if (this.done) return false;
    if (this.framer.write(chunk, start, end)) return true;
    if (this.framer.tooLong) this.fail(TOO_LONG);
    return false;
  }

  /** The body ended: a last line without a newline still counts (and is bounded too). */
  end(): void {
    if (!this.done && !this.framer.end() && this.framer.tooLong) this.fail(TOO_LONG);
  }

  private fail(message: string): void {
    this.done = true;
    this.emit({ type: 'ERROR', error: WatchError.parse(this.resourcePath, message) });
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
        return this.emit(data) !== false;
      }
      case 'ERROR':
        return (
          this.emit({ type: 'ERROR', error: WatchError.fromStatus(object, this.resourcePath) }) !==
          false
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
    this.fail(message.replace('skipped a line', 'a line'));
    return false;
  }
}
