import { describe, expect, it } from '@jest/globals';
import { WatchError } from '../../../src/WatchError.js';
import { WatchLineDecoder } from '../../../src/client/watch/watchLineDecoder.js';
import type { WatchEvent } from '../../../src/types.js';

// The decoder is the body's sink (bytes, end, fail): what its consumer hears, and that the end
// is told once whatever ended the watch.
const bytesOf = (text: string) => new TextEncoder().encode(text);
const added = (name: string) =>
  JSON.stringify({ type: 'ADDED', object: { metadata: { name, resourceVersion: name } } });

function consumer(stopAfter = Infinity) {
  const told: string[] = [];
  return {
    told,
    consumer: {
      event: (event: WatchEvent<any>) => {
        told.push(
          event.type === 'ERROR' ? `ERROR ${event.error.errorType}` : event.resourceVersion!,
        );
        return told.length < stopAfter;
      },
      end: () => void told.push('end'),
    },
  };
}

describe('WatchLineDecoder as a body sink', () => {
  it('decodes the lines of a range of a chunk, and tells the end once', () => {
    const { told, consumer: c } = consumer();
    const decoder = new WatchLineDecoder(c, { resourcePath: '/api/v1/pods' });
    const chunk = bytesOf(`xx${added('1')}\n${added('2')}\nyy`);
    expect(decoder.bytes(chunk, 2, chunk.length - 2)).toBe(true);
    decoder.end();
    decoder.end();
    expect(told).toEqual(['1', '2', 'end']);
  });

  it('stops within a chunk at the event after which its consumer is gone, and tells the end', () => {
    const { told, consumer: c } = consumer(1);
    const decoder = new WatchLineDecoder(c, { resourcePath: '/api/v1/pods' });
    const chunk = bytesOf(`${added('1')}\n${added('2')}\n`);
    expect(decoder.bytes(chunk, 0, chunk.length)).toBe(false);
    expect(told).toEqual(['1', 'end']);
  });

  it('tells a failure as one ERROR event, then the end', () => {
    const { told, consumer: c } = consumer();
    const decoder = new WatchLineDecoder(c, { resourcePath: '/api/v1/pods' });
    decoder.fail(WatchError.network('/api/v1/pods', new Error('reset'), 'the watch stream failed'));
    expect(told).toEqual(['ERROR SYSTEM_ERROR', 'end']);
  });

  it('ends a line over maxLineBytes with PARSE_ERROR, then the end, once', () => {
    const { told, consumer: c } = consumer();
    const decoder = new WatchLineDecoder(c, { resourcePath: '/api/v1/pods', maxLineBytes: 8 });
    const chunk = bytesOf(`${added('1')}\n`);
    expect(decoder.bytes(chunk, 0, chunk.length)).toBe(false);
    expect(decoder.bytes(chunk, 0, chunk.length)).toBe(false);
    decoder.end();
    expect(told).toEqual(['ERROR PARSE_ERROR', 'end']);
  });
});
