const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
/** The first size of the buffer that holds a partial line. */
const INITIAL_PENDING_BYTES = 16 * 1024;
/** The largest partial-line buffer kept once its line is out. */
const KEPT_PENDING_BYTES = 1024 * 1024;

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
 * copied, into one buffer of the framer's own that grows up to `maxLineBytes`. Past that,
 * `write` returns false and `tooLong` is set, without buffering the rest.
 */
export class LineFramer {
  tooLong = false;
  private pending: Buffer | undefined;
  private pendingBytes = 0;
  private readonly maxLineBytes: number;
  private readonly skipBlank: boolean;

  /** `onLine` returns false to stop framing (the stream is over for its consumer). */
  constructor(
    private readonly onLine: (line: string) => boolean,
    { maxLineBytes, skipBlank = true }: LineFramerConfig,
  ) {
    this.maxLineBytes = maxLineBytes;
    this.skipBlank = skipBlank;
  }

  /** Frames every complete line of `chunk[start, end)`; false once framing must stop. */
  write(chunk: Buffer, start = 0, end = chunk.length): boolean {
    if (this.tooLong) return false;
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
    let bytes = this.pendingBytes;
    if (this.pending![bytes - 1] === CARRIAGE_RETURN) bytes--;
    if (bytes > this.maxLineBytes) return this.overflow();
    this.pendingBytes = 0;
    const held = this.pending!;
    // A buffer grown for one long line is not kept for the rest of the stream.
    if (held.length > KEPT_PENDING_BYTES) this.pending = undefined;
    return this.emit(held, 0, bytes);
  }

  private emit(bytes: Buffer, start: number, end: number): boolean {
    if (end === start && this.skipBlank) return true;
    return this.onLine(bytes.toString('utf8', start, end));
  }

  /** Copies `chunk[start, end)` after the partial line held so far. */
  private hold(chunk: Buffer, start: number, end: number): boolean {
    const length = end - start;
    const needed = this.pendingBytes + length;
    // One byte of slack: a held line may end with the `\r` of its line ending.
    if (needed > this.maxLineBytes + 1) return this.overflow();
    if (!this.pending || needed > this.pending.length) {
      const size = Math.min(
        this.maxLineBytes + 1,
        Math.max(needed, INITIAL_PENDING_BYTES, (this.pending?.length ?? 0) * 2),
      );
      const grown = Buffer.allocUnsafe(size);
      if (this.pendingBytes > 0) this.pending!.copy(grown, 0, 0, this.pendingBytes);
      this.pending = grown;
    }
    chunk.copy(this.pending, this.pendingBytes, start, end);
    this.pendingBytes = needed;
    return true;
  }

  private overflow(): false {
    this.tooLong = true;
    this.pending = undefined;
    this.pendingBytes = 0;
    return false;
  }
}
