import { describe, expect, it } from '@jest/globals';
import {
  MalformedResponseError,
  ResponseParser,
  type ResponseHead,
} from '../../../src/sources/http1/ResponseParser.js';

/** What the reused read buffer holds once the parser is done with a read. */
const GARBAGE = 0xa5;
/** Where a piece starts in the read buffer: the parser must honour `start`, not assume 0. */
const OFFSET = 3;

/** One read buffer for every parser in this file, reused for every write, as a socket's is. */
let readBuffer = Buffer.alloc(256 * 1024, GARBAGE);

type Event = 'head' | 'body' | 'end';

/**
 * Feeds a parser piece by piece through one reused read buffer and records what it hands out.
 * Body bytes are copied during the call; after every write the bytes of the read buffer are
 * overwritten with garbage, so a parser that held on to a range would deliver garbage.
 */
class Recorder {
  readonly heads: ResponseHead[] = [];
  readonly chunks: Buffer[] = [];
  readonly events: Event[] = [];
  readonly badRanges: string[] = [];
  readonly parser: ResponseParser;
  ends = 0;
  bodyCalls = 0;
  private writing: { start: number; end: number } | undefined;

  constructor(
    maxHeadBytes?: number,
    private readonly bodyResult: (call: number) => boolean = () => true,
  ) {
    this.parser = new ResponseParser(
      {
        head: (head) => {
          this.heads.push(head);
          this.events.push('head');
        },
        body: (buffer, start, end) => {
          const w = this.writing;
          if (!w || buffer !== readBuffer || start < w.start || end > w.end || start >= end)
            this.badRanges.push(`${start}..${end} (writing ${w?.start}..${w?.end})`);
          // Copied now: the range is only valid during this call.
          this.chunks.push(Buffer.from(buffer.subarray(start, end)));
          this.events.push('body');
          return this.bodyResult(this.bodyCalls++);
        },
        end: () => {
          this.ends++;
          this.events.push('end');
        },
      },
      maxHeadBytes,
    );
  }

  get body(): Buffer {
    return Buffer.concat(this.chunks);
  }

  write(piece: Buffer): void {
    const size = piece.length + 2 * OFFSET;
    if (readBuffer.length < size) readBuffer = Buffer.alloc(size, GARBAGE);
    readBuffer.fill(GARBAGE, 0, size);
    piece.copy(readBuffer, OFFSET);
    this.writing = { start: OFFSET, end: OFFSET + piece.length };
    try {
      this.parser.write(readBuffer, OFFSET, OFFSET + piece.length);
    } finally {
      this.writing = undefined;
      // The next read lands in the same buffer.
      readBuffer.fill(GARBAGE, 0, size);
    }
  }

  writeAll(pieces: Buffer[]): this {
    for (const piece of pieces) this.write(piece);
    return this;
  }
}

function bytes(text: string, encoding: BufferEncoding = 'latin1'): Buffer {
  return Buffer.from(text, encoding);
}

function oneByteAtATime(data: Buffer): Buffer[] {
  return [...data].map((b) => Buffer.from([b]));
}

/** Every way of cutting `data` in two, then one byte at a time. */
function everySplit(data: Buffer): Buffer[][] {
  const out: Buffer[][] = [];
  for (let i = 0; i <= data.length; i++) out.push([data.subarray(0, i), data.subarray(i)]);
  out.push(oneByteAtATime(data));
  return out;
}

function feed(pieces: Buffer[], maxHeadBytes?: number): Recorder {
  return new Recorder(maxHeadBytes).writeAll(pieces);
}

/** The error `write` threw for these pieces, if any (finish is not called). */
function writeError(pieces: Buffer[], maxHeadBytes?: number): unknown {
  try {
    feed(pieces, maxHeadBytes);
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Refused while written, whether it arrives whole or one byte at a time. */
function expectRefused(data: string | Buffer, maxHeadBytes?: number): void {
  const all = typeof data === 'string' ? bytes(data) : data;
  const whole = writeError([all], maxHeadBytes);
  expect(whole).toBeInstanceOf(MalformedResponseError);
  expect((whole as Error).name).toBe('MalformedResponseError');
  expect(writeError(oneByteAtATime(all), maxHeadBytes)).toBeInstanceOf(MalformedResponseError);
}

function chunk(data: Buffer, extension = '', upper = false): Buffer {
  const size = data.length.toString(16);
  return Buffer.concat([
    bytes(`${upper ? size.toUpperCase() : size}${extension}\r\n`),
    data,
    bytes('\r\n'),
  ]);
}

const WATCH_HEAD =
  'HTTP/1.1 200 OK\r\n' +
  'Audit-Id: 5b2c6d1e-7f0a-4c3b-9e8d-1a2b3c4d5e6f\r\n' +
  'Cache-Control: no-cache, private\r\n' +
  'Content-Type: application/json\r\n' +
  'Date: Mon, 01 Jan 2024 00:00:00 GMT\r\n';

const EVENTS = [
  '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"café","resourceVersion":"101"},"data":{"greeting":"héllo wörld 🚀"}}}\n',
  '{"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"日本語","resourceVersion":"102"},"data":{"emoji":"😀👍🏽"}}}\n',
  '{"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"103"}}}\n',
];
const WATCH_BODY = bytes(EVENTS.join(''), 'utf8');

/** A chunked watch answer: chunk boundaries inside multi-byte characters, an extension, a trailer. */
function chunkedWatch(): Buffer {
  const first = bytes(EVENTS[0], 'utf8');
  // Cut the first event inside the 4-byte rocket (F0 9F 9A 80).
  const rocket = first.indexOf(bytes('🚀', 'utf8'));
  const second = bytes(EVENTS[1], 'utf8');
  // Cut the second event inside 日 (E6 97 A5).
  const nihon = second.indexOf(bytes('日', 'utf8')) + 1;
  return Buffer.concat([
    bytes(WATCH_HEAD + 'Transfer-Encoding: chunked\r\n\r\n'),
    chunk(first.subarray(0, rocket + 2), ';name="watch event"'),
    chunk(first.subarray(rocket + 2)),
    chunk(second.subarray(0, nihon), '', true),
    chunk(second.subarray(nihon)),
    chunk(bytes(EVENTS[2], 'utf8'), ' ; last=1'),
    bytes('0\r\nX-Kubernetes-Trailer: done\r\n\r\n'),
  ]);
}

function lengthWatch(): Buffer {
  return Buffer.concat([
    bytes(WATCH_HEAD + `Content-Length: ${WATCH_BODY.length}\r\n\r\n`),
    WATCH_BODY,
  ]);
}

function untilCloseWatch(): Buffer {
  return Buffer.concat([bytes(WATCH_HEAD + '\r\n'), WATCH_BODY]);
}

/** Describes how a run differs from a complete answer with `body`, or '' when it does not. */
function difference(recorder: Recorder, body: Buffer, ends: number): string {
  const problems: string[] = [];
  if (recorder.heads.length !== 1) problems.push(`${recorder.heads.length} heads`);
  else if (recorder.heads[0].statusCode !== 200) problems.push('not 200');
  if (!recorder.body.equals(body)) problems.push('body differs');
  if (recorder.ends !== ends) problems.push(`${recorder.ends} ends`);
  if (recorder.badRanges.length > 0) problems.push(`bad ranges ${recorder.badRanges.join(' ')}`);
  const order = recorder.events.join(',');
  if (!/^head(,body)*(,end)?$/.test(order)) problems.push(`events ${order}`);
  return problems.join('; ');
}

describe('ResponseParser', () => {
  describe('wherever a read ends', () => {
    it('decodes a chunked watch answer to the same bytes for every split point and one byte at a time', () => {
      const answer = chunkedWatch();
      const failures: string[] = [];
      const splits = everySplit(answer);
      splits.forEach((pieces, i) => {
        const recorder = feed(pieces);
        const problem = difference(recorder, WATCH_BODY, 1);
        if (problem) failures.push(`split ${i}: ${problem}`);
        if (!recorder.parser.done) failures.push(`split ${i}: not done`);
        // Done before the connection closed: finish() adds nothing.
        recorder.parser.finish();
        if (recorder.ends !== 1) failures.push(`split ${i}: finish called end again`);
      });
      expect(failures).toEqual([]);
      expect(splits.length).toBe(answer.length + 2);
    });

    it('decodes a chunked watch answer cut in three pieces anywhere', () => {
      const answer = chunkedWatch();
      const failures: string[] = [];
      for (let i = 0; i <= answer.length; i += 5) {
        for (let j = i; j <= answer.length; j += 11) {
          const pieces = [answer.subarray(0, i), answer.subarray(i, j), answer.subarray(j)];
          const problem = difference(feed(pieces), WATCH_BODY, 1);
          if (problem) failures.push(`${i}/${j}: ${problem}`);
        }
      }
      expect(failures).toEqual([]);
    });

    it('delivers the head of a chunked watch answer, names lowercased', () => {
      const recorder = feed([chunkedWatch()]);
      expect(recorder.heads).toHaveLength(1);
      const [head] = recorder.heads;
      expect(head.statusCode).toBe(200);
      expect(head.statusText).toBe('OK');
      expect([...head.headers.keys()]).toEqual([
        'audit-id',
        'cache-control',
        'content-type',
        'date',
        'transfer-encoding',
      ]);
      expect(head.headers.get('cache-control')).toBe('no-cache, private');
      expect(head.headers.get('transfer-encoding')).toBe('chunked');
      // The trailer is not a header of the answer.
      expect(head.headers.has('x-kubernetes-trailer')).toBe(false);
    });

    it('decodes a Content-Length answer to the same bytes for every split point and one byte at a time', () => {
      const answer = lengthWatch();
      const failures: string[] = [];
      everySplit(answer).forEach((pieces, i) => {
        const recorder = feed(pieces);
        const problem = difference(recorder, WATCH_BODY, 1);
        if (problem) failures.push(`split ${i}: ${problem}`);
        if (!recorder.parser.done) failures.push(`split ${i}: not done`);
      });
      expect(failures).toEqual([]);
    });

    it('decodes an until-close answer to the same bytes for every split point and one byte at a time', () => {
      const answer = untilCloseWatch();
      const failures: string[] = [];
      everySplit(answer).forEach((pieces, i) => {
        const recorder = feed(pieces);
        // Not complete until the connection closes.
        const before = difference(recorder, WATCH_BODY, 0);
        if (before) failures.push(`split ${i} before finish: ${before}`);
        if (recorder.parser.done) failures.push(`split ${i}: done before finish`);
        recorder.parser.finish();
        const after = difference(recorder, WATCH_BODY, 1);
        if (after) failures.push(`split ${i} after finish: ${after}`);
        if (!recorder.parser.done) failures.push(`split ${i}: not done after finish`);
      });
      expect(failures).toEqual([]);
    });

    it('honours the start and end of the range written', () => {
      const answer = bytes('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
      const buffer = Buffer.concat([bytes('JUNK'), answer, bytes('MORE JUNK')]);
      const chunks: string[] = [];
      let ends = 0;
      const parser = new ResponseParser({
        head: () => undefined,
        body: (b, s, e) => (chunks.push(b.toString('latin1', s, e)), true),
        end: () => ends++,
      });
      parser.write(buffer, 4, 4 + answer.length);
      expect(chunks.join('')).toBe('hello');
      expect(ends).toBe(1);
    });

    it('writes the whole buffer when no range is given', () => {
      const chunks: string[] = [];
      const parser = new ResponseParser({
        head: () => undefined,
        body: (b, s, e) => (chunks.push(b.toString('latin1', s, e)), true),
        end: () => undefined,
      });
      parser.write(bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi'));
      expect(chunks.join('')).toBe('hi');
      expect(parser.done).toBe(true);
    });
  });

  describe('heads', () => {
    it('reads the status code and reason phrase, and an absent reason as empty', () => {
      const [notFound] = feed([bytes('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')]).heads;
      expect(notFound.statusCode).toBe(404);
      expect(notFound.statusText).toBe('Not Found');
      const [bare] = feed([bytes('HTTP/1.0 200\r\nContent-Length: 0\r\n\r\n')]).heads;
      expect(bare.statusCode).toBe(200);
      expect(bare.statusText).toBe('');
    });

    it('lowercases names, trims optional whitespace and joins repeated values with ", "', () => {
      const [head] = feed([
        bytes(
          'HTTP/1.1 200 OK\r\n' +
            'X-Multi: one\r\n' +
            'Content-Length: 0\r\n' +
            'x-MULTI:  two \t\r\n' +
            'X-Tabbed:\tin\tside\t\r\n' +
            'X-Empty:\r\n' +
            'X-Latin: caf\xe9\r\n' +
            '\r\n',
        ),
      ]).heads;
      expect(head.headers.get('x-multi')).toBe('one, two');
      expect(head.headers.get('x-tabbed')).toBe('in\tside');
      expect(head.headers.get('x-empty')).toBe('');
      expect(head.headers.get('x-latin')).toBe('café');
      expect(head.headers.get('content-length')).toBe('0');
      expect(head.headers.has('X-Multi')).toBe(false);
    });

    it('accepts heads with LF-only line ends', () => {
      const recorder = feed([bytes('HTTP/1.1 200 OK\nContent-Length: 3\nX-A: b\n\nabc')]);
      expect(recorder.heads[0].headers.get('x-a')).toBe('b');
      expect(recorder.body.toString()).toBe('abc');
      expect(recorder.ends).toBe(1);
      // The blank line ending an LF-only head comes before a CRLF blank line in the body.
      const crlfBody = bytes('HTTP/1.1 200 OK\nContent-Length: 6\n\nab\r\n\r\n');
      for (const pieces of everySplit(crlfBody)) {
        const split = feed(pieces);
        expect(split.body.toString()).toBe('ab\r\n\r\n');
        expect(split.ends).toBe(1);
      }
    });

    it('keeps a body that starts with line ends out of the head', () => {
      const recorder = feed(
        oneByteAtATime(bytes('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n\n\n\r\n')),
      );
      expect(recorder.body.toString('latin1')).toBe('\n\n\r\n');
      expect(recorder.ends).toBe(1);
    });

    it('accepts a head of exactly maxHeadBytes', () => {
      const head = 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nX-Pad: ';
      const end = '\r\n\r\n';
      const max = 100;
      const exact = head + 'p'.repeat(max - head.length - end.length) + end;
      expect(exact.length).toBe(max);
      for (const pieces of [[bytes(exact + 'x')], oneByteAtATime(bytes(exact + 'x'))]) {
        const recorder = feed(pieces, max);
        expect(recorder.heads).toHaveLength(1);
        expect(recorder.body.toString()).toBe('x');
      }
    });

    it('decides on a head near maxHeadBytes the same way however it is cut', () => {
      const max = 80;
      for (let size = max - 2; size <= max + 4; size++) {
        const prefix = 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nX-Pad: ';
        const answer = bytes(prefix + 'p'.repeat(size - prefix.length - 4) + '\r\n\r\nx');
        const outcomes = new Set(
          everySplit(answer).map((pieces) => {
            const error = writeError(pieces, max);
            return error === undefined ? 'accepted' : (error as Error).name;
          }),
        );
        expect([...outcomes]).toHaveLength(1);
      }
    });

    it('reads heads well under the default 64 KiB bound', () => {
      const big = 'a'.repeat(60 * 1024);
      const recorder = feed([
        bytes(`HTTP/1.1 200 OK\r\nX-Big: ${big}\r\nContent-Length: 1\r\n\r\nz`),
      ]);
      expect(recorder.heads[0].headers.get('x-big')).toBe(big);
      expect(recorder.body.toString()).toBe('z');
    });
  });

  describe('framing', () => {
    it('reads a body of Content-Length bytes, with the head or in later reads', () => {
      const recorder = feed([
        bytes('HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello'),
        bytes(' wor'),
        bytes('ld'),
      ]);
      expect(recorder.body.toString()).toBe('hello world');
      expect(recorder.ends).toBe(1);
      expect(recorder.parser.done).toBe(true);
    });

    it('ends an empty Content-Length body at once', () => {
      const recorder = feed([bytes('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')]);
      expect(recorder.events).toEqual(['head', 'end']);
      expect(recorder.parser.done).toBe(true);
    });

    it('accepts a repeated Content-Length that agrees, in two lines or one', () => {
      for (const lengths of [
        'Content-Length: 3\r\nContent-Length: 3\r\n',
        'Content-Length: 3, 3\r\n',
      ]) {
        const recorder = feed([bytes(`HTTP/1.1 200 OK\r\n${lengths}\r\nabcdef`)]);
        expect(recorder.body.toString()).toBe('abc');
        expect(recorder.ends).toBe(1);
      }
    });

    it('accepts a 15-digit Content-Length', () => {
      const recorder = feed([
        bytes('HTTP/1.1 200 OK\r\nContent-Length: 999999999999999\r\n\r\nabc'),
      ]);
      expect(recorder.body.toString()).toBe('abc');
      expect(recorder.parser.done).toBe(false);
    });

    it('decodes chunks with LF-only line ends', () => {
      const recorder = feed([
        bytes(
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\n1;x\n!\n0\nX-T: 1\n\n',
        ),
      ]);
      expect(recorder.body.toString()).toBe('hello!');
      expect(recorder.ends).toBe(1);
    });

    it('reads hexadecimal chunk sizes in either case, up to 13 digits', () => {
      const body = 'x'.repeat(0x1a);
      for (const size of ['1a', '1A', '000000000001a']) {
        const recorder = feed([
          bytes(
            `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${size}\r\n${body}\r\n0\r\n\r\n`,
          ),
        ]);
        expect(recorder.body.toString()).toBe(body);
        expect(recorder.ends).toBe(1);
      }
      // The largest 13-digit size is taken as a size (its data never comes here).
      const huge = feed([
        bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffff\r\nab'),
      ]);
      expect(huge.body.toString()).toBe('ab');
      expect(huge.parser.done).toBe(false);
    });

    it('accepts chunk extensions up to 4096 bytes', () => {
      const extension = ';' + 'e'.repeat(4095);
      const answer = bytes(
        `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3${extension}\r\nabc\r\n0${extension}\r\n\r\n`,
      );
      for (const pieces of [[answer], oneByteAtATime(answer)]) {
        const recorder = feed(pieces);
        expect(recorder.body.toString()).toBe('abc');
        expect(recorder.ends).toBe(1);
      }
    });

    it('accepts trailers within maxHeadBytes', () => {
      const recorder = feed(
        [
          bytes(
            'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nA: 1\r\nB: 2\r\n\r\n',
          ),
        ],
        64,
      );
      expect(recorder.body.toString()).toBe('a');
      expect(recorder.ends).toBe(1);
    });

    it('lets Transfer-Encoding win over Content-Length', () => {
      const recorder = feed([
        bytes(
          'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n' +
            '6\r\nabcdef\r\n0\r\n\r\n',
        ),
      ]);
      expect(recorder.body.toString()).toBe('abcdef');
      expect(recorder.ends).toBe(1);
    });

    it('takes "gzip, chunked" (any case) as chunked', () => {
      for (const codings of ['gzip, chunked', 'gzip,Chunked', 'GZIP , CHUNKED ']) {
        const recorder = feed([
          bytes(
            `HTTP/1.1 200 OK\r\nTransfer-Encoding: ${codings}\r\n\r\n3\r\n\x1f\x8b\x08\r\n0\r\n\r\n`,
          ),
        ]);
        expect(recorder.body.toString('latin1')).toBe('\x1f\x8b\x08');
        expect(recorder.ends).toBe(1);
      }
    });

    it('takes "chunked" spread over two Transfer-Encoding lines as chunked', () => {
      const recorder = feed([
        bytes(
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n' +
            '2\r\nok\r\n0\r\n\r\n',
        ),
      ]);
      expect(recorder.body.toString()).toBe('ok');
      expect(recorder.ends).toBe(1);
    });

    it('reads "gzip" alone (or chunked not last) until the connection closes, Content-Length ignored', () => {
      for (const codings of ['gzip', 'chunked, gzip']) {
        const raw = '3\r\nabc\r\n0\r\n\r\n';
        const recorder = feed([
          bytes(
            `HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: ${codings}\r\n\r\n${raw}`,
          ),
        ]);
        expect(recorder.body.toString()).toBe(raw);
        expect(recorder.ends).toBe(0);
        recorder.parser.finish();
        expect(recorder.ends).toBe(1);
      }
    });

    it('reads a body without Content-Length or Transfer-Encoding until the connection closes', () => {
      const recorder = feed([bytes('HTTP/1.1 200 OK\r\n\r\nsome'), bytes(' bytes')]);
      expect(recorder.body.toString()).toBe('some bytes');
      expect(recorder.ends).toBe(0);
      recorder.parser.finish();
      expect(recorder.ends).toBe(1);
    });
  });

  describe('status codes', () => {
    it('skips 100 Continue and reads the 200 that follows in the same read', () => {
      const answer = bytes(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
      );
      for (const pieces of everySplit(answer)) {
        const recorder = feed(pieces);
        expect(recorder.heads.map((h) => h.statusCode)).toEqual([200]);
        expect(recorder.body.toString()).toBe('ok');
        expect(recorder.ends).toBe(1);
      }
    });

    it('skips several interim answers, headers and all', () => {
      const recorder = feed([
        bytes(
          'HTTP/1.1 100 Continue\r\n\r\n' +
            'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n' +
            'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!',
        ),
      ]);
      expect(recorder.heads).toHaveLength(1);
      expect(recorder.heads[0].statusCode).toBe(200);
      expect(recorder.heads[0].headers.has('link')).toBe(false);
      expect(recorder.body.toString()).toBe('!');
    });

    it('ends 204 and 304 with no body even with a Content-Length or Transfer-Encoding', () => {
      for (const [status, framing] of [
        ['204 No Content', 'Content-Length: 5'],
        ['304 Not Modified', 'Content-Length: 5'],
        ['204 No Content', 'Transfer-Encoding: chunked'],
        ['304 Not Modified', 'Transfer-Encoding: chunked'],
      ]) {
        const answer = bytes(`HTTP/1.1 ${status}\r\n${framing}\r\n\r\nhello`);
        for (const pieces of [[answer], oneByteAtATime(answer)]) {
          const recorder = feed(pieces);
          expect(recorder.events).toEqual(['head', 'end']);
          expect(recorder.parser.done).toBe(true);
          expect(() => recorder.parser.finish()).not.toThrow();
          expect(recorder.ends).toBe(1);
        }
      }
    });

    it('hands an error status to head() and reads its body', () => {
      const recorder = feed([
        bytes(
          'HTTP/1.1 410 Gone\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n{}\r\n',
        ),
      ]);
      expect(recorder.heads[0].statusCode).toBe(410);
      expect(recorder.body.toString()).toBe('{}\r\n');
      expect(recorder.ends).toBe(1);
    });
  });

  describe('after a complete response', () => {
    it('ignores bytes after a Content-Length body', () => {
      const recorder = feed([
        bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA'),
        bytes('HTTP/1.1 500 Oops\r\n\r\n'),
        bytes('\x00 not even HTTP'),
      ]);
      expect(recorder.body.toString()).toBe('ok');
      expect(recorder.heads).toHaveLength(1);
      expect(recorder.ends).toBe(1);
    });

    it('ignores bytes after the last chunk and trailers', () => {
      const recorder = feed([
        bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\nzz\r\nbad'),
        bytes('more garbage'),
      ]);
      expect(recorder.body.toString()).toBe('ok');
      expect(recorder.ends).toBe(1);
    });

    it('ignores bytes after a 204', () => {
      const recorder = feed([bytes('HTTP/1.1 204 No Content\r\n\r\n'), bytes('SSH-2.0-garbage')]);
      expect(recorder.events).toEqual(['head', 'end']);
    });
  });

  describe('when body() returns false', () => {
    it('stops delivering the rest of the read and every later read (Content-Length)', () => {
      const recorder = new Recorder(undefined, () => false);
      recorder.write(bytes('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
      expect(recorder.body.toString()).toBe('abc');
      expect(recorder.parser.done).toBe(true);
      recorder.write(bytes('defghij'));
      recorder.write(bytes('garbage that would not parse'));
      expect(recorder.bodyCalls).toBe(1);
      expect(recorder.body.toString()).toBe('abc');
      expect(recorder.ends).toBe(0);
      expect(() => recorder.parser.finish()).not.toThrow();
      expect(recorder.ends).toBe(0);
    });

    it('stops in the middle of a chunked body, later framing errors and all', () => {
      const recorder = new Recorder(undefined, (call) => call < 1);
      recorder.write(
        bytes(
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
            '3\r\none\r\n3\r\ntwo\r\n5\r\nthree\r\n0\r\n\r\n',
        ),
      );
      expect(recorder.chunks.map(String)).toEqual(['one', 'two']);
      expect(recorder.parser.done).toBe(true);
      expect(() => recorder.write(bytes('zz not a chunk size\r\n'))).not.toThrow();
      expect(recorder.chunks.map(String)).toEqual(['one', 'two']);
      expect(recorder.ends).toBe(0);
      expect(() => recorder.parser.finish()).not.toThrow();
      expect(recorder.ends).toBe(0);
    });

    it('stops an until-close body: finish() then does not call end()', () => {
      const recorder = new Recorder(undefined, () => false);
      recorder.write(bytes('HTTP/1.1 200 OK\r\n\r\nfirst'));
      recorder.write(bytes('second'));
      expect(recorder.body.toString()).toBe('first');
      recorder.parser.finish();
      expect(recorder.ends).toBe(0);
    });

    it('keeps going while body() returns true', () => {
      const recorder = new Recorder(undefined, () => true);
      recorder.writeAll(oneByteAtATime(bytes('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc')));
      expect(recorder.bodyCalls).toBe(3);
      expect(recorder.ends).toBe(1);
    });
  });

  describe('finish()', () => {
    it('completes an until-close body, calling end() once', () => {
      const recorder = feed([bytes('HTTP/1.1 200 OK\r\n\r\nall of it')]);
      recorder.parser.finish();
      expect(recorder.ends).toBe(1);
      expect(recorder.parser.done).toBe(true);
      recorder.parser.finish();
      expect(recorder.ends).toBe(1);
      expect(recorder.events).toEqual(['head', 'body', 'end']);
    });

    it('completes an until-close body that is empty', () => {
      const recorder = feed([bytes('HTTP/1.1 200 OK\r\n\r\n')]);
      recorder.parser.finish();
      expect(recorder.events).toEqual(['head', 'end']);
    });

    it('throws for an incomplete chunked body, wherever it was cut', () => {
      const answer = chunkedWatch();
      const head = answer.indexOf(bytes('\r\n\r\n')) + 4;
      for (let cut = head; cut < answer.length; cut++) {
        const recorder = feed([answer.subarray(0, cut)]);
        expect(() => recorder.parser.finish()).toThrow(MalformedResponseError);
        expect(recorder.ends).toBe(0);
      }
    });

    it('throws for an incomplete Content-Length body', () => {
      const recorder = feed([bytes('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')]);
      expect(() => recorder.parser.finish()).toThrow(MalformedResponseError);
      expect(() => recorder.parser.finish()).toThrow(/before it was complete/);
      expect(recorder.ends).toBe(0);
    });

    it('throws for an incomplete head', () => {
      const recorder = feed([bytes('HTTP/1.1 200 OK\r\nContent-Le')]);
      expect(() => recorder.parser.finish()).toThrow(MalformedResponseError);
      expect(recorder.heads).toHaveLength(0);
    });

    it('throws when no bytes came at all, saying the server closed without an answer', () => {
      const recorder = new Recorder();
      let error: unknown;
      try {
        recorder.parser.finish();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect((error as Error).message).toMatch(/closed the connection without an answer/);
      // An empty read is no answer either.
      const empty = feed([Buffer.alloc(0)]);
      expect(() => empty.parser.finish()).toThrow(/without an answer/);
    });

    it('does nothing after a complete response', () => {
      for (const answer of [lengthWatch(), chunkedWatch()]) {
        const recorder = feed([answer]);
        expect(recorder.ends).toBe(1);
        expect(() => recorder.parser.finish()).not.toThrow();
        expect(recorder.ends).toBe(1);
        expect(recorder.body.equals(WATCH_BODY)).toBe(true);
      }
    });
  });

  describe('refuses', () => {
    const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';

    it('an error that is a MalformedResponseError and an Error', () => {
      const error = writeError([bytes('SSH-2.0-OpenSSH_9.6\r\n')]);
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe('MalformedResponseError');
    });

    it('an SSH banner as soon as 5 bytes arrived, before any line end', () => {
      const recorder = new Recorder();
      for (const b of bytes('SSH-')) recorder.write(Buffer.from([b]));
      expect(() => recorder.write(bytes('2'))).toThrow(MalformedResponseError);
      expect(writeError([bytes('SSH-2')])).toBeInstanceOf(MalformedResponseError);
      expect(writeError([bytes('SS'), bytes('H-2')])).toBeInstanceOf(MalformedResponseError);
      expect(recorder.heads).toHaveLength(0);
    });

    it('nothing in the first 4 bytes of an answer starting like HTTP', () => {
      expect(writeError([bytes('HTTP')])).toBeUndefined();
      expect(writeError([bytes('HTTP/')])).toBeUndefined();
      expect(writeError([bytes('SSH-')])).toBeUndefined();
    });

    it('other answers that are not HTTP', () => {
      expectRefused('<html><body>hello</body></html>\r\n\r\n');
      expectRefused('http/1.1 200 OK\r\n\r\n');
      expectRefused('\x16\x03\x01\x02\x00\x01\x00');
    });

    it('a status line that is not HTTP/1.x', () => {
      expectRefused('HTTP/2 200 OK\r\n\r\n');
      expectRefused('HTTP/1.2 200 OK\r\n\r\n');
      expectRefused('HTTP/1.1 20 OK\r\n\r\n');
      expectRefused('HTTP/1.1 2000 OK\r\n\r\n');
      expectRefused('HTTP/1.1 099 Low\r\n\r\n');
      expectRefused('HTTP/1.1 OK\r\n\r\n');
      expectRefused('HTTP/1.1  200 OK\r\n\r\n');
      expectRefused('HTTP/1.1 200 O\x00K\r\n\r\n');
    });

    it('101 Switching Protocols, which was never asked for', () => {
      const recorder = new Recorder();
      expect(() =>
        recorder.write(bytes('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n')),
      ).toThrow(MalformedResponseError);
      expect(recorder.heads).toHaveLength(0);
      expectRefused(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n',
      );
    });

    it('a header name that is not a token', () => {
      expectRefused('HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nName : x\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nNa(me): x\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nN\xe4me: x\r\n\r\n');
    });

    it('a header line without a name or without a colon', () => {
      expectRefused('HTTP/1.1 200 OK\r\n: no name\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nno colon at all\r\n\r\n');
    });

    it('a folded header line', () => {
      expectRefused('HTTP/1.1 200 OK\r\nX-Long: first\r\n second\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nX-Long: first\r\n\tsecond: part\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\n Leading: space\r\n\r\n');
    });

    it('a NUL in a header value', () => {
      expectRefused('HTTP/1.1 200 OK\r\nX-A: be\x00fore\r\n\r\n');
    });

    it('other control characters in a header value, tab aside', () => {
      expectRefused('HTTP/1.1 200 OK\r\nX-A: \x01\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nX-A: a\x1bb\r\n\r\n');
      expectRefused('HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\n\r\n');
      expect(writeError([bytes('HTTP/1.1 200 OK\r\nX-A: a\tb\r\n\r\n')])).toBeUndefined();
    });

    it('two different Content-Lengths', () => {
      expectRefused('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!');
      expectRefused('HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!');
      expectRefused('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5, 7\r\n\r\nhello!');
    });

    it('a Content-Length that is not a whole number', () => {
      for (const value of ['abc', '-1', '+5', '5.0', '0x10', '1e3', '', '5 5', '1234567890123456'])
        expectRefused(`HTTP/1.1 200 OK\r\nContent-Length: ${value}\r\n\r\nhello`);
    });

    it('a chunk size with 14 digits', () => {
      expectRefused(CHUNKED + '00000000000005\r\nhello\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '10000000000000\r\n');
      // Refused at the 14th digit, without waiting for the line end.
      expectRefused(CHUNKED + 'ffffffffffffff');
    });

    it('a chunk size that is not hexadecimal', () => {
      expectRefused(CHUNKED + 'g\r\nx\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '0x5\r\nhello\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '-5\r\nhello\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '5g\r\nhello\r\n0\r\n\r\n');
      expectRefused(CHUNKED + ';ext\r\nhello\r\n0\r\n\r\n');
    });

    it('an empty chunk size line', () => {
      expectRefused(CHUNKED + '\r\nhello\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '\nhello\r\n');
      expectRefused(CHUNKED + '5\r\nhello\r\n\r\n0\r\n\r\n');
    });

    it('a chunk size line whose CR is not followed by LF', () => {
      expectRefused(CHUNKED + '5\rhello\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '5;a=b\rhello\r\n0\r\n\r\n');
    });

    it('a chunk followed by something other than CRLF', () => {
      expectRefused(CHUNKED + '5\r\nhello!\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '5\r\nhelloXY0\r\n\r\n');
      expectRefused(CHUNKED + '5\r\nhello\rX\n0\r\n\r\n');
      expectRefused(CHUNKED + '5\r\nhello\r\r\n0\r\n\r\n');
      // Even when the next byte could start a chunk size.
      expectRefused(CHUNKED + '5\r\nhelloab\r\n0\r\n\r\n');
    });

    it('endless headers, once past maxHeadBytes', () => {
      const max = 64;
      const endless = bytes('HTTP/1.1 200 OK\r\n' + 'X-Header: value\r\n'.repeat(20));
      expectRefused(endless, max);
      // Byte by byte: nothing is refused up to the bound, and the byte past it is.
      const recorder = new Recorder(max);
      for (let i = 0; i < max; i++) recorder.write(endless.subarray(i, i + 1));
      expect(() => recorder.write(endless.subarray(max, max + 1))).toThrow(MalformedResponseError);
    });

    it('endless headers under the default 64 KiB bound', () => {
      const endless = bytes('HTTP/1.1 200 OK\r\nX-Big: ' + 'a'.repeat(70 * 1024));
      expect(writeError([endless])).toBeInstanceOf(MalformedResponseError);
      const pieces: Buffer[] = [];
      for (let i = 0; i < endless.length; i += 1000) pieces.push(endless.subarray(i, i + 1000));
      expect(writeError(pieces)).toBeInstanceOf(MalformedResponseError);
    });

    it('a head that ends just past maxHeadBytes', () => {
      const max = 64;
      const answer = bytes('HTTP/1.1 200 OK\r\nX-Pad: ' + 'p'.repeat(60) + '\r\n\r\n');
      expect(answer.length).toBeGreaterThan(max + 8);
      expectRefused(answer, max);
    });

    it('endless chunk extensions', () => {
      expectRefused(CHUNKED + '5;' + 'e'.repeat(5000));
      expectRefused(CHUNKED + '5;' + 'e'.repeat(5000) + '\r\nhello\r\n0\r\n\r\n');
      expectRefused(CHUNKED + '0 ' + 'e'.repeat(5000) + '\r\n\r\n');
    });

    it('endless trailers', () => {
      const max = 64;
      // One trailer line that never ends.
      expectRefused(CHUNKED + '1\r\na\r\n0\r\nX-Trailer: ' + 't'.repeat(200), max);
      // Trailer lines that never stop coming.
      expectRefused(CHUNKED + '1\r\na\r\n0\r\n' + 'X-T: 1\r\n'.repeat(50), max);
      // Under the default bound as well.
      expect(
        writeError([bytes(CHUNKED + '0\r\n' + 'X-Trailer: 1\r\n'.repeat(10 * 1024))]),
      ).toBeInstanceOf(MalformedResponseError);
    });
  });
});
