import { describe, expect, it } from '@jest/globals';
import { readBody } from '../../src/client/request/readBody.js';
import type { BodySink, ResponseBody } from '../../src/transport/body.js';
import { bodyText } from '../../src/transport/bodyText.js';
import { bodyText as browserBodyText } from '../../src/transport/platform.browser.js';

const encode = (text: string) => new TextEncoder().encode(text);

describe('bodyText', () => {
  it.each([
    ['ASCII', '{"kind":"PodList","items":[{"metadata":{"name":"a"}}]}'],
    ['non-ASCII text', '{"note":"é ü 日本 🚀"}'],
    ['a byte-order mark (kept, as Buffer#toString keeps it)', '\uFEFF{"a":1}'],
    ['nothing', ''],
  ])('reads %s exactly as a UTF-8 decode does, in Node and in the browser', (_, text) => {
    const bytes = encode(text);
    expect(bodyText(bytes)).toBe(text);
    expect(browserBodyText(bytes)).toBe(text);
  });

  it('reads a view into a larger buffer from its own offset', () => {
    const bytes = encode('xx{"a":"b"}yy').subarray(2, 11);
    expect(bodyText(bytes)).toBe('{"a":"b"}');
  });

  it('turns malformed UTF-8 into U+FFFD', () => {
    expect(bodyText(Uint8Array.of(0x7b, 0xff, 0x7d))).toBe('{\uFFFD}');
  });
});

/** A body that delivers `chunks`, each from a larger scratch buffer that is reused. */
function bodyOf(chunks: string[]): ResponseBody {
  return {
    start(sink: BodySink) {
      const scratch = new Uint8Array(64);
      for (const chunk of chunks) {
        const bytes = encode(chunk);
        scratch.set(bytes, 3);
        if (!sink.bytes(scratch, 3, 3 + bytes.length)) return;
        scratch.fill(0);
      }
      sink.end();
    },
    pause() {},
    resume() {},
    release() {},
  };
}

describe('readBody', () => {
  it.each([
    ['its announced length', 9],
    ['no length', undefined],
    ['a length shorter than the body', 4],
    ['a length longer than the body', 20],
  ])('reads every chunk in order with %s', async (_, length) => {
    const read = await readBody(bodyOf(['{"a"', ':"b', '"}']), 1000, length);
    expect(read.ok && bodyText(read.bytes)).toBe('{"a":"b"}');
    expect(read.ok && read.truncated).toBe(false);
  });

  it('stops at its limit, whatever the length says', async () => {
    const read = await readBody(bodyOf(['{"a"', ':"b', '"}']), 5, 9);
    expect(read.ok && bodyText(read.bytes)).toBe('{"a":');
    expect(read.ok && read.truncated).toBe(true);
  });
});
