const LF = 10;
const CR = 13;
const SEMICOLON = 59;
const SPACE = 32;
const TAB = 9;

/** The most hex digits of a chunk size: 13 digits stay below 2^52, a safe integer. */
const MAX_CHUNK_SIZE_DIGITS = 13;
/** The most bytes of chunk extensions (`;name=value`) on one chunk-size line. */
const MAX_CHUNK_EXTENSION_BYTES = 4096;

// Parser states (plain numbers: compared in the per-byte loop).
const HEAD = 0;
const CHUNK_SIZE = 1;
const CHUNK_EXTENSION = 2;
const CHUNK_SIZE_LF = 3;
const CHUNK_DATA = 4;
const CHUNK_DATA_CR = 5;
const CHUNK_DATA_LF = 6;
const TRAILERS = 7;
const LENGTH = 8;
const UNTIL_CLOSE = 9;
const DONE = 10;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Control characters other than horizontal tab, and DEL: never valid in a header value.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const BAD_VALUE_CHARACTER = /[\x00-\x08\x0a-\x1f\x7f]/;
/** The blank line that ends a head, after a CRLF or a bare LF line end. */
const HEAD_ENDS = ['\r\n\r\n', '\n\n', '\n\r\n'];
const OPTIONAL_WHITESPACE = /^[ \t]+|[ \t]+$/g;
// eslint-disable-next-line no-control-regex -- a reason phrase holds no control characters
const STATUS_LINE = /^HTTP\/1\.[01] ([1-9]\d\d)(?: ([^\x00-\x08\x0a-\x1f\x7f]*))?$/;

/** An answer that breaks HTTP/1.1 framing: it is refused, never guessed at. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

/** The status line and headers of a final (non-1xx) response. */
export interface ResponseHead {
  statusCode: number;
  statusText: string;
  /** Lowercase names; a repeated header's values joined with `, `. */
  headers: Map<string, string>;
}

/** Where a {@link ResponseParser} delivers a response. */
export interface ResponseParserHandlers {
  /** The head of the final response (1xx interim answers are skipped). */
  head(head: ResponseHead): void;
  /**
   * Body bytes `buffer[start, end)`, framing removed. Valid only during the call: the buffer is
   * reused for the next read. Returning false stops the parser.
   */
  body(buffer: Buffer, start: number, end: number): boolean;
  /** The body is complete. */
  end(): void;
}

/**
 * An incremental HTTP/1.1 response parser for one GET: status line and headers (bounded by
 * `maxHeadBytes`), then a body framed by chunked encoding, a Content-Length, or the connection
 * closing. Body bytes are handed out as ranges of the buffers written to it, with no copy and no
 * allocation per chunk. Anything malformed (a status line that is not HTTP/1.x, a bad header, a
 * bad chunk size, conflicting lengths, a switch of protocols never asked for) throws
 * {@link MalformedResponseError}.
 */
export class ResponseParser {
  private state = HEAD;
  private stopped = false;
  private head = '';
  private remaining = 0;
  private sizeDigits = 0;
  private extensionBytes = 0;
  private trailerBytes = 0;
  private trailerLineBytes = 0;

  constructor(
    private readonly handlers: ResponseParserHandlers,
    private readonly maxHeadBytes = 64 * 1024,
  ) {}

  /** True once the body is complete (or the parser was stopped). */
  get done(): boolean {
    return this.state === DONE || this.stopped;
  }

  /** Parses `buffer[start, end)`. */
  write(buffer: Buffer, start = 0, end = buffer.length): void {
    let at = start;
    while (at < end && !this.stopped) {
      switch (this.state) {
        case HEAD:
          at = this.readHead(buffer, at, end);
          break;
        case CHUNK_DATA:
        case LENGTH: {
          const take = Math.min(this.remaining, end - at);
          this.remaining -= take;
          if (!this.handlers.body(buffer, at, at + take)) return this.stop();
          at += take;
          if (this.remaining === 0) {
            if (this.state === LENGTH) this.finishBody();
            else this.state = CHUNK_DATA_CR;
          }
          break;
        }
        case UNTIL_CLOSE:
          if (!this.handlers.body(buffer, at, end)) return this.stop();
          at = end;
          break;
        case DONE:
          // Bytes after a complete response on a connection we close: ignored.
          return;
        default:
          this.chunkFraming(buffer[at++]);
      }
    }
  }

  /** The connection ended: completes a body read until close, or throws if one was cut short. */
  finish(): void {
    if (this.stopped || this.state === DONE) return;
    if (this.state === UNTIL_CLOSE) return this.finishBody();
    if (this.state === HEAD && this.head === '')
      throw new MalformedResponseError('the server closed the connection without an answer');
    throw new MalformedResponseError('the response ended before it was complete');
  }

  private stop(): void {
    this.stopped = true;
  }

  private finishBody(): void {
    this.state = DONE;
    this.handlers.end();
  }

  private readHead(buffer: Buffer, start: number, end: number): number {
    const before = this.head.length;
    const room = this.maxHeadBytes - before;
    this.head += buffer.toString('latin1', start, Math.min(end, start + room + 1));
    if (this.head.length >= 5 && !this.head.startsWith('HTTP/'))
      throw new MalformedResponseError('the answer is not HTTP');
    // The blank line ending the head may straddle the previous write.
    const from = Math.max(0, before - 3);
    let headEnd = -1;
    let separator = 0;
    for (const blank of HEAD_ENDS) {
      const found = this.head.indexOf(blank, from);
      if (found !== -1 && (headEnd === -1 || found < headEnd))
        [headEnd, separator] = [found, blank.length];
    }
    if (headEnd === -1) {
      if (this.head.length > this.maxHeadBytes)
        throw new MalformedResponseError(
          `the response headers are larger than ${this.maxHeadBytes} bytes`,
        );
      return end;
    }
    const text = this.head.slice(0, headEnd);
    const consumed = headEnd + separator - before;
    this.head = '';
    this.beginBody(parseHead(text));
    return start + consumed;
  }

  private beginBody(head: ResponseHead): void {
    const { statusCode, headers } = head;
    if (statusCode === 101)
      throw new MalformedResponseError('the server switched protocols, which was not asked for');
    // An interim answer (100 Continue, 103 Early Hints): the real one follows.
    if (statusCode < 200) return;
    this.handlers.head(head);
    if (this.stopped) return;
    const transferEncoding = headers.get('transfer-encoding');
    const contentLength = headers.get('content-length');
    if (statusCode === 204 || statusCode === 304) {
      this.finishBody();
    } else if (transferEncoding !== undefined) {
      // With chunked last, the chunks frame the body (and any Content-Length is ignored, as
      // RFC 9112 says); any other coding runs until the connection closes.
      const codings = transferEncoding.split(',');
      const last = codings[codings.length - 1].trim().toLowerCase();
      this.state = last === 'chunked' ? CHUNK_SIZE : UNTIL_CLOSE;
      this.sizeDigits = 0;
      this.remaining = 0;
    } else if (contentLength !== undefined) {
      this.remaining = parseContentLength(contentLength);
      if (this.remaining === 0) this.finishBody();
      else this.state = LENGTH;
    } else {
      this.state = UNTIL_CLOSE;
    }
  }

  /** One byte of chunk framing: a size line, the line end after data, or trailers. */
  private chunkFraming(byte: number): void {
    switch (this.state) {
      case CHUNK_SIZE: {
        const digit = hexValue(byte);
        if (digit !== -1) {
          if (++this.sizeDigits > MAX_CHUNK_SIZE_DIGITS)
            throw new MalformedResponseError('a chunk size is too large');
          this.remaining = this.remaining * 16 + digit;
          return;
        }
        if (this.sizeDigits === 0) throw new MalformedResponseError('a chunk size is not a number');
        if (byte === SEMICOLON || byte === SPACE || byte === TAB) {
          this.extensionBytes = 0;
          this.state = CHUNK_EXTENSION;
        } else if (byte === CR) this.state = CHUNK_SIZE_LF;
        else if (byte === LF) this.endSizeLine();
        else throw new MalformedResponseError('a chunk size is not a number');
        return;
      }
      case CHUNK_EXTENSION:
        if (byte === LF) return this.endSizeLine();
        if (byte === CR) this.state = CHUNK_SIZE_LF;
        else if (++this.extensionBytes > MAX_CHUNK_EXTENSION_BYTES)
          throw new MalformedResponseError('chunk extensions are too long');
        return;
      case CHUNK_SIZE_LF:
        if (byte !== LF) throw new MalformedResponseError('a chunk size line is not ended by CRLF');
        return this.endSizeLine();
      case CHUNK_DATA_CR:
        if (byte === CR) this.state = CHUNK_DATA_LF;
        else if (byte === LF) this.nextChunk();
        else throw new MalformedResponseError('a chunk is longer than its size');
        return;
      case CHUNK_DATA_LF:
        if (byte !== LF) throw new MalformedResponseError('a chunk is not ended by CRLF');
        return this.nextChunk();
      case TRAILERS:
        if (++this.trailerBytes > this.maxHeadBytes)
          throw new MalformedResponseError('the trailers are too large');
        if (byte === LF) {
          if (this.trailerLineBytes === 0) return this.finishBody();
          this.trailerLineBytes = 0;
        } else if (byte !== CR) this.trailerLineBytes++;
        return;
    }
  }

  private endSizeLine(): void {
    if (this.remaining === 0) {
      this.trailerBytes = 0;
      this.trailerLineBytes = 0;
      this.state = TRAILERS;
    } else this.state = CHUNK_DATA;
  }

  private nextChunk(): void {
    this.state = CHUNK_SIZE;
    this.sizeDigits = 0;
    this.remaining = 0;
  }
}

function hexValue(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  const lower = byte | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

function parseHead(text: string): ResponseHead {
  const lines = text.split('\n');
  const statusLine = lines[0].endsWith('\r') ? lines[0].slice(0, -1) : lines[0];
  const status = STATUS_LINE.exec(statusLine);
  if (!status) throw new MalformedResponseError('the status line is not HTTP/1.x');
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    // A name must be a token: this also refuses folded lines (starting with a space).
    if (!TOKEN.test(name)) throw new MalformedResponseError('a response header is malformed');
    const raw = line.slice(colon + 1);
    if (BAD_VALUE_CHARACTER.test(raw))
      throw new MalformedResponseError('a response header holds a control character');
    const value = raw.replace(OPTIONAL_WHITESPACE, '');
    const key = name.toLowerCase();
    const previous = headers.get(key);
    headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
  }
  return { statusCode: Number(status[1]), statusText: status[2] ?? '', headers };
}

function parseContentLength(value: string): number {
  const lengths = new Set(value.split(',').map((part) => part.trim()));
  const [only] = lengths;
  if (lengths.size !== 1 || !/^\d{1,15}$/.test(only))
    throw new MalformedResponseError('the Content-Length is not one whole number');
  return Number(only);
}
