import { byteAllocation, concatBytes, utf8Text } from '../../transport/bytes.js';

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
/** The first size of the buffer that holds a partial line. */
const INITIAL_PENDING_BYTES = 16 * 1024;
/**
 * The partial-line buffer grows (by doubling) up to this size and is kept from line to line.
 * A longer line goes on in segments of this size, copied once into one buffer when it is
 * complete: growing one buffer to `maxLineBytes` by doubling would leave as much garbage again,
 * all of it for a line that may end up refused.
 */
const SEGMENT_BYTES = 1024 * 1024;

/** Options of a {@link LineFramer}. */
export interface LineFramerConfig {
  /** The longest line accepted, in bytes, without its line ending. */
  maxLineBytes: number;
  /** Skip empty lines without making strings of them (default true). */
  skipBlank?: boolean;
}

/**
 * Cuts a byte stream into lines (`\r?\n`; a last line without one counts at `end()`), on bytes,
 * so a multi-byte character split across chunks survives: a line is decoded only once it is
 * complete. The bytes written are only read during `write` (they may live in a reused read
 * buffer): a line within one write is decoded straight from it, and only a partial line is
 * copied, into the framer's own buffer (then segments of it, for a long line) holding at most
 * `maxLineBytes`. Past that, `write` returns false and `tooLong` is set, without buffering the
 * rest.
 */
export class LineFramer {
  tooLong = false;
  /** Holds the end of the partial line (all of it, for a line under `SEGMENT_BYTES`). */
  private pending: Uint8Array | undefined;
  private pendingBytes = 0;
  /** The full segments before `pending` of a long partial line, oldest first. */
  private readonly segments: Uint8Array[] = [];
  private segmentBytes = 0;
  private readonly maxLineBytes: number;
  private readonly skipBlank: boolean;

  /**
   * `onLine` returns false to stop framing (the stream is over for its consumer). Throws a
   * RangeError for a `maxLineBytes` that {@link isLineBound} refuses: framing with it would never
   * move past the first byte.
   */
  constructor(
    private readonly onLine: (line: string) => boolean,
    { maxLineBytes, skipBlank = true }: LineFramerConfig,
  ) {
    if (!isLineBound(maxLineBytes)) {
      throw new RangeError(`maxLineBytes must be a positive whole number, not ${maxLineBytes}`);
    }
    this.maxLineBytes = maxLineBytes;
    this.skipBlank = skipBlank;
  }

  /** Frames every complete line of `chunk[start, end)`; false once framing must stop. */
  write(chunk: Uint8Array, start = 0, end = chunk.length): boolean {
    if (this.tooLong) return false;
    // On a Buffer (Node), indexOf is Buffer's memchr: ten times TypedArray's generic one.
    let newline = chunk.indexOf(NEWLINE, start);
    if (newline >= end) newline = -1;
    if (this.pendingBytes > 0) {
      if (newline === -1) return this.hold(chunk, start, end);
      if (!this.hold(chunk, start, newline) || !this.emitPending()) return false;
      start = newline + 1;
      newline = start < end ? chunk.indexOf(NEWLINE, start) : -1;
      if (newline >= end) newline = -1;
    }
    while (newline !== -1) {
      let lineEnd = newline;
      if (lineEnd > start && chunk[lineEnd - 1] === CARRIAGE_RETURN) lineEnd--;
      if (lineEnd - start > this.maxLineBytes) return this.overflow();
      if (!this.emit(chunk, start, lineEnd)) return false;
      start = newline + 1;
      newline = start < end ? chunk.indexOf(NEWLINE, start) : -1;
      if (newline >= end) newline = -1;
    }
    return start < end ? this.hold(chunk, start, end) : true;
  }

  /**
   * The stream ended: frames the last line if it had no line ending. False when that line is
   * longer than `maxLineBytes` (`tooLong` is set) or framing had to stop.
   */
  end(): boolean {
    if (this.tooLong) return false;
    return this.pendingBytes === 0 || this.emitPending();
  }

  /** Frames the partial line held so far, now complete (its `\r` dropped). */
  private emitPending(): boolean {
    const pending = this.pending!;
    let bytes = this.segmentBytes + this.pendingBytes;
    // `pending` is never empty while a line is held: a segment is only added to take more bytes.
    if (pending[this.pendingBytes - 1] === CARRIAGE_RETURN) bytes--;
    if (bytes > this.maxLineBytes) return this.overflow();
    if (this.segments.length === 0) {
      this.pendingBytes = 0;
      return this.emit(pending, 0, bytes);
    }
    this.segments.push(pending.subarray(0, this.pendingBytes));
    const line = concatBytes(this.segments, this.segmentBytes + this.pendingBytes);
    // The segments of one long line are not kept for the rest of the stream.
    this.release();
    return this.emit(line, 0, bytes);
  }

  private emit(bytes: Uint8Array, start: number, end: number): boolean {
    if (end === start && this.skipBlank) return true;
    return this.onLine(utf8Text(bytes, start, end));
  }

  /** Copies `chunk[start, end)` after the partial line held so far. */
  private hold(chunk: Uint8Array, start: number, end: number): boolean {
    // One byte of slack: a held line may end with the `\r` of its line ending.
    const room = this.maxLineBytes + 1 - this.segmentBytes - this.pendingBytes;
    if (end - start > room) return this.overflow();
    while (start < end) {
      const target = this.bufferFor(end - start);
      const copied = Math.min(end - start, target.length - this.pendingBytes);
      target.set(chunk.subarray(start, start + copied), this.pendingBytes);
      this.pendingBytes += copied;
      start += copied;
    }
    return true;
  }

  /** `pending`, with room for at least one more byte (for `wanted`, if it can grow that far). */
  private bufferFor(wanted: number): Uint8Array {
    const pending = this.pending;
    const size = pending?.length ?? 0;
    if (
      size - this.pendingBytes >= wanted ||
      (size === SEGMENT_BYTES && size > this.pendingBytes)
    ) {
      return pending!;
    }
    const limit = this.maxLineBytes + 1 - this.segmentBytes;
    if (size < SEGMENT_BYTES) {
      const needed = this.pendingBytes + wanted;
      const grown = byteAllocation.alloc(
        Math.min(limit, SEGMENT_BYTES, Math.max(needed, INITIAL_PENDING_BYTES, size * 2)),
      );
      if (this.pendingBytes > 0) grown.set(pending!.subarray(0, this.pendingBytes));
      this.pending = grown;
      return grown;
    }
    // A full segment: the line goes on in a new one, sized to what the line may still take.
    this.segments.push(pending!);
    this.segmentBytes += size;
    this.pendingBytes = 0;
    this.pending = byteAllocation.alloc(Math.min(limit - size, SEGMENT_BYTES));
    return this.pending;
  }

  private overflow(): false {
    this.tooLong = true;
    this.release();
    return false;
  }

  private release(): void {
    this.pending = undefined;
    this.pendingBytes = 0;
    this.segments.length = 0;
    this.segmentBytes = 0;
  }
}

/**
 * Whether `maxLineBytes` is a bound a framer can work with: a positive whole number.
 *
 * @example
 * isLineBound(16 * 1024 * 1024); // true
 * isLineBound(Number.NaN); // false
 */
export function isLineBound(maxLineBytes: unknown): maxLineBytes is number {
  return Number.isInteger(maxLineBytes) && (maxLineBytes as number) > 0;
}
