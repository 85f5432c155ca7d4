/**
 * Properties of the line framer and the watch-line decoder (issue 39): any split of any byte
 * stream into chunks gives the same lines and events as one write of it, and as a plain model
 * (split on LF, CR dropped, blank lines skipped, the first line over the bound stops it); no
 * input makes the framer hold more than `maxLineBytes` (+1 for a CR) of a partial line.
 */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { LineFramer } from '../../src/client/watch/lineFramer.js';
import { WatchLineDecoder } from '../../src/client/watch/watchLineDecoder.js';
import type { WatchEvent } from '../../src/types.js';
import { checkProperty } from './settings.js';

/** What the framer makes of `bytes` written as the chunks between `cuts`, and its most held. */
function frame(bytes: Buffer, cuts: number[], maxLineBytes: number) {
  const lines: string[] = [];
  const framer = new LineFramer((line) => (lines.push(line), true), { maxLineBytes });
  const held = framer as unknown as { pendingBytes: number; segmentBytes: number };
  let mostHeld = 0;
  let start = 0;
  let going = true;
  // Each chunk written as a window of the whole buffer, so start/end offsets are exercised too.
  for (const end of [...cuts, bytes.length]) {
    if (going) going = framer.write(bytes, start, end);
    mostHeld = Math.max(mostHeld, held.pendingBytes + held.segmentBytes);
    start = end;
  }
  if (going) framer.end();
  return { lines, tooLong: framer.tooLong, mostHeld };
}

/** The framer's contract as plain code over the whole stream. */
function model(bytes: Buffer, maxLineBytes: number) {
  const lines: string[] = [];
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) {
    parts.push(bytes.subarray(start, i));
    start = i + 1;
  }
  if (start < bytes.length) parts.push(bytes.subarray(start));
  for (let part of parts) {
    if (part.length > 0 && part[part.length - 1] === 13) part = part.subarray(0, part.length - 1);
    if (part.length > maxLineBytes) return { lines, tooLong: true };
    if (part.length > 0) lines.push(part.toString('utf8'));
  }
  return { lines, tooLong: false };
}

/** Sorted cut positions inside a stream of `length` bytes. */
const cutsOf = (length: number, raw: number[]) =>
  [...new Set(raw.map((n) => n % (length + 1)))].sort((a, b) => a - b);

/** Bytes rich in what framing is about: LF, CR, multi-byte characters, and anything. */
const streamBytes = fc
  .array(
    fc.oneof(
      fc.constantFrom('\n', '\r\n', '\r', '\n\n', 'é', '€', '😀', '{"type":"ADDED"}'),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.uint8Array({ maxLength: 8 }).map((a) => Buffer.from(a).toString('latin1')),
    ),
    { maxLength: 40 },
  )
  .map((pieces) => Buffer.from(pieces.join(''), 'utf8'));

describe('line framer properties', () => {
  it('any split gives the model lines, and nothing held past the bound', async () => {
    await checkProperty(
      'line framer: any split equals the model, held <= maxLineBytes + 1',
      fc.property(
        streamBytes,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 48 }),
        (bytes, raw, maxLineBytes) => {
          const got = frame(bytes, cutsOf(bytes.length, raw), maxLineBytes);
          const want = model(bytes, maxLineBytes);
          if (
            JSON.stringify([got.lines, got.tooLong]) !== JSON.stringify([want.lines, want.tooLong])
          )
            return false;
          return got.mostHeld <= maxLineBytes + 1;
        },
      ),
      400,
    );
  });
});

/** Watch lines: events, in-stream errors, bookmarks, and lines that are not events. */
const watchLine = fc.oneof(
  fc
    .record({
      type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
      name: fc.string({ unit: 'grapheme', maxLength: 10 }),
      rv: fc.nat({ max: 999 }),
    })
    .map(({ type, name, rv }) =>
      JSON.stringify({ type, object: { metadata: { name, resourceVersion: String(rv) } } }),
    ),
  fc
    .record({ code: fc.integer({ min: 100, max: 599 }), message: fc.string({ maxLength: 20 }) })
    .map((status) => JSON.stringify({ type: 'ERROR', object: { kind: 'Status', ...status } })),
  fc.constantFrom('', 'not json', '{"type":"ADDED"}', '{"type":"NOPE","object":{}}', '[]', 'null'),
  fc.string({ maxLength: 30 }),
);

function decode(bytes: Buffer, cuts: number[], strict: boolean, maxLineBytes: number) {
  const events: unknown[] = [];
  const decoder = new WatchLineDecoder<unknown>(
    {
      event: (event: WatchEvent<unknown>) => (
        events.push(
          event.type === 'ERROR' ? ['ERROR', event.error.errorType, event.error.message] : event,
        ),
        true
      ),
      end: () => {},
    },
    { resourcePath: '/api/v1/pods', strict, maxLineBytes, logger: { warn: () => {} } },
  );
  let start = 0;
  let going = true;
  for (const end of [...cuts, bytes.length]) {
    if (going) going = decoder.bytes(bytes, start, end);
    start = end;
  }
  if (going) decoder.end();
  return events;
}

describe('watch-line decoder properties', () => {
  it('any split of any watch stream gives the events of one write', async () => {
    await checkProperty(
      'watch-line decoder: any split gives the same events',
      fc.property(
        fc.array(watchLine, { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        fc.integer({ min: 8, max: 400 }),
        (lines, ending, lastEnded, raw, strict, maxLineBytes) => {
          const text = lines.join(ending) + (lastEnded ? ending : '');
          const bytes = Buffer.from(text, 'utf8');
          const whole = decode(bytes, [], strict, maxLineBytes);
          const split = decode(bytes, cutsOf(bytes.length, raw), strict, maxLineBytes);
          return JSON.stringify(whole) === JSON.stringify(split);
        },
      ),
      300,
    );
  });
});
