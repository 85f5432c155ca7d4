import { describe, expect, it, jest } from '@jest/globals';
import { byteAllocation } from '../../../src/transport/bytes.js';
import { LineFramer } from '../../../src/client/watch/lineFramer.js';

function frame(
  chunks: Buffer[],
  maxLineBytes = 1024,
  skipBlank = true,
): { lines: string[]; tooLong: boolean } {
  const lines: string[] = [];
  const framer = new LineFramer((l) => (lines.push(l), true), { maxLineBytes, skipBlank });
  for (const chunk of chunks) if (!framer.write(chunk)) break;
  framer.end();
  return { lines, tooLong: framer.tooLong };
}

describe('LineFramer', () => {
  const text = 'héllo wörld 🚀\r\n{"a":"日本語"}\n\nlast line 😀';
  const bytes = Buffer.from(text, 'utf8');
  const expected = ['héllo wörld 🚀', '{"a":"日本語"}', 'last line 😀'];

  it('gives the same lines wherever the stream is cut, multi-byte characters and CRLF included', () => {
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j += 3) {
        const parts = [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
        expect(frame(parts).lines).toEqual(expected);
      }
    }
  });

  it('refuses a bound it could never frame with (it would loop on the first byte)', () => {
    for (const maxLineBytes of [Number.NaN, 0, -3, 1.5]) {
      expect(() => new LineFramer(() => true, { maxLineBytes })).toThrow(RangeError);
    }
  });

  it('gives the same lines one byte at a time', () => {
    const parts = [...bytes].map((b) => Buffer.from([b]));
    expect(frame(parts).lines).toEqual(expected);
  });

  it('skips blank lines unless told to keep them', () => {
    expect(frame([Buffer.from('\n\r\n\na\n\n')]).lines).toEqual(['a']);
    expect(frame([Buffer.from('a\n\nb\n')], 1024, false).lines).toEqual(['a', '', 'b']);
  });

  it('stops at a line longer than the bound, held across chunks, without buffering past it', () => {
    expect(frame([Buffer.from('12345678\n')], 8)).toEqual({ lines: ['12345678'], tooLong: false });
    expect(frame([Buffer.from('12345678\r\n')], 8)).toEqual({
      lines: ['12345678'],
      tooLong: false,
    });
    expect(frame([Buffer.from('123456789\nok\n')], 8)).toEqual({ lines: [], tooLong: true });
    expect(frame([Buffer.from('12345'), Buffer.from('6789\n')], 8)).toEqual({
      lines: [],
      tooLong: true,
    });
    expect(frame([Buffer.from('ok\n12345'), Buffer.from('6789'), Buffer.from('more')], 8)).toEqual({
      lines: ['ok'],
      tooLong: true,
    });
    expect(frame([Buffer.from('1234'), Buffer.from('5678\r'), Buffer.from('\n')], 8)).toEqual({
      lines: ['12345678'],
      tooLong: false,
    });
    // The last line, without a line ending, is bounded too (its `\r` is not counted).
    expect(frame([Buffer.from('ok\n123456789')], 8)).toEqual({ lines: ['ok'], tooLong: true });
    expect(frame([Buffer.from('12345678\r')], 8)).toEqual({ lines: ['12345678'], tooLong: false });
  });

  it('stops framing when the consumer says so', () => {
    const lines: string[] = [];
    const framer = new LineFramer((l) => (lines.push(l), l !== 'b'), { maxLineBytes: 100 });
    expect(framer.write(Buffer.from('a\nb\nc\n'))).toBe(false);
    expect(lines).toEqual(['a', 'b']);
  });

  it('reads only the range it is given, and only during the call: a reused read buffer cannot corrupt a held line', () => {
    const long = 'x'.repeat(20_000);
    const text = `héllo 🚀\r\n${long}\n{"a":"日本語"}\n\nlast 😀`;
    const bytes = Buffer.from(text, 'utf8');
    const expected = ['héllo 🚀', long, '{"a":"日本語"}', 'last 😀'];
    for (const size of [1, 2, 3, 7, 1000, 65_536]) {
      const lines: string[] = [];
      const framer = new LineFramer((l) => (lines.push(l), true), { maxLineBytes: 50_000 });
      // One read buffer for every read, as a socket with `onread` gives, with bytes around the range.
      const readBuffer = Buffer.alloc(size + 8);
      for (let at = 0; at < bytes.length; at += size) {
        const end = Math.min(at + size, bytes.length);
        readBuffer.fill('\n');
        bytes.copy(readBuffer, 4, at, end);
        if (!framer.write(readBuffer, 4, 4 + end - at)) throw new Error(`stopped at ${at}`);
        readBuffer.fill('#');
      }
      framer.end();
      expect(lines).toEqual(expected);
    }
  });
});

describe('LineFramer with lines longer than one segment (1 MiB)', () => {
  const MiB = 1024 * 1024;
  /** A line of `bytes` bytes of multi-byte characters, so segment boundaries split them. */
  const longLine = (bytes: number) => {
    const unit = 'aé日🚀'; // 1 + 2 + 3 + 4 bytes
    return unit.repeat(Math.ceil(bytes / 10)).slice(0, bytes);
  };

  /** Frames `text` through one reused read buffer of `readSize` bytes. */
  function frameReads(text: string, readSize: number, maxLineBytes: number) {
    const lines: string[] = [];
    const framer = new LineFramer((l) => (lines.push(l), true), { maxLineBytes });
    const bytes = Buffer.from(text, 'utf8');
    const readBuffer = Buffer.alloc(readSize);
    let stopped = false;
    for (let at = 0; at < bytes.length && !stopped; at += readSize) {
      const end = Math.min(at + readSize, bytes.length);
      bytes.copy(readBuffer, 0, at, end);
      stopped = !framer.write(readBuffer, 0, end - at);
      readBuffer.fill(0);
    }
    if (!stopped) framer.end();
    return { lines, tooLong: framer.tooLong };
  }

  it('joins a line of several segments, whatever the read size, and frames the next lines', () => {
    const long = longLine(3 * MiB + 12_345);
    const text = `a\n${long}\r\nb\n${long}\nc`;
    for (const readSize of [65_536, 16_384, 1_000_003]) {
      expect(frameReads(text, readSize, 4 * MiB)).toEqual({
        lines: ['a', long, 'b', long, 'c'],
        tooLong: false,
      });
    }
  });

  it('accepts a line of exactly maxLineBytes across segments, CRLF included, and refuses one byte more', () => {
    const max = 2 * MiB + 7;
    const exact = 'x'.repeat(max);
    expect(frameReads(`${exact}\r\nok\n`, 65_536, max)).toEqual({
      lines: [exact, 'ok'],
      tooLong: false,
    });
    expect(frameReads(`${exact}\r`, 65_536, max)).toEqual({ lines: [exact], tooLong: false });
    expect(frameReads(`${exact}y\nok\n`, 65_536, max)).toEqual({ lines: [], tooLong: true });
    expect(frameReads(`ok\n${exact}y`, 65_536, max)).toEqual({ lines: ['ok'], tooLong: true });
  });

  it('holds a refused line once: it allocates about maxLineBytes, not the double that growing one buffer would', () => {
    const maxLineBytes = 16 * MiB;
    const allocate = jest.spyOn(byteAllocation, 'alloc');
    try {
      const framer = new LineFramer(() => true, { maxLineBytes });
      const read = Buffer.alloc(65_536, 'x');
      let written = 0;
      while (framer.write(read)) written += read.length;
      expect(framer.tooLong).toBe(true);
      expect(written).toBe(maxLineBytes);
      const allocated = allocate.mock.calls.reduce((sum, [size]) => sum + size, 0);
      expect(allocated).toBeGreaterThanOrEqual(maxLineBytes);
      expect(allocated).toBeLessThan(maxLineBytes + 2 * MiB);
    } finally {
      allocate.mockRestore();
    }
  });
});
