const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

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
 * complete. A partial line is held only up to `maxLineBytes`; past that, `write` returns false
 * and `tooLong` is set, without buffering the rest.
 */
export class LineFramer {
  tooLong = false;
  private pending: Buffer[] = [];
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

  /** Frames every complete line of `chunk`; false once framing must stop. */
  write(chunk: Buffer): boolean {
    if (this.tooLong) return false;
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    if (this.pendingBytes > 0) {
      if (newline === -1) return this.hold(chunk, 0);
      const bytes = this.pendingBytes + newline;
      if (
        bytes - (this.lastByteBefore(chunk, newline) === CARRIAGE_RETURN ? 1 : 0) >
        this.maxLineBytes
      ) {
        return this.overflow();
      }
      this.pending.push(chunk.subarray(0, newline));
      const line = Buffer.concat(this.pending, bytes).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      if (!this.emit(line.endsWith('\r') ? line.slice(0, -1) : line)) return false;
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    while (newline !== -1) {
      let end = newline;
      if (end > start && chunk[end - 1] === CARRIAGE_RETURN) end--;
      if (end - start > this.maxLineBytes) return this.overflow();
      if ((end > start || !this.skipBlank) && !this.onLine(chunk.toString('utf8', start, end)))
        return false;
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    return start < chunk.length ? this.hold(chunk, start) : true;
  }

  /** The stream ended: frames the last line if it had no line ending. */
  end(): void {
    if (this.tooLong || this.pendingBytes === 0) return;
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    this.emit(line.endsWith('\r') ? line.slice(0, -1) : line);
  }

  private lastByteBefore(chunk: Buffer, newline: number): number | undefined {
    if (newline > 0) return chunk[newline - 1];
    const last = this.pending[this.pending.length - 1];
    return last[last.length - 1];
  }

  private emit(line: string): boolean {
    return line === '' && this.skipBlank ? true : this.onLine(line);
  }

  private hold(chunk: Buffer, start: number): boolean {
    this.pendingBytes += chunk.length - start;
    // One byte of slack: a held line may end with the `\r` of its line ending.
    if (this.pendingBytes > this.maxLineBytes + 1) return this.overflow();
    this.pending.push(start === 0 ? chunk : chunk.subarray(start));
    return true;
  }

  private overflow(): false {
    this.tooLong = true;
    this.pending = [];
    this.pendingBytes = 0;
    return false;
  }
}
