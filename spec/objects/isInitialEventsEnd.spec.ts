import { describe, expect, it } from '@jest/globals';
import { filter } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { isInitialEventsEnd } from '../../src/objects/isInitialEventsEnd.js';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  added,
  bookmark,
  errorEvent,
  pod,
} from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';

describe('isInitialEventsEnd', () => {
  it('is true for the annotated BOOKMARK only', () => {
    expect(isInitialEventsEnd(bookmark('9', { initialEventsEnd: true }))).toBe(true);
    expect(isInitialEventsEnd(bookmark('9'))).toBe(false);
    expect(isInitialEventsEnd(errorEvent(500))).toBe(false);
  });

  it('is false for an object event carrying the annotation', () => {
    const annotated = pod('a', '5', {
      metadata: { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
    });
    expect(isInitialEventsEnd(added(annotated))).toBe(false);
  });

  it('wants the value "true", and copes with a bookmark without metadata', () => {
    const notTrue: WatchEvent = {
      type: 'BOOKMARK',
      object: { metadata: { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'false' } } },
    };
    expect(isInitialEventsEnd(notTrue)).toBe(false);
    expect(isInitialEventsEnd({ type: 'BOOKMARK', object: {} })).toBe(false);
    expect(isInitialEventsEnd({ type: 'BOOKMARK', object: null })).toBe(false);
  });

  it(
    'picks the end of the initial events out of a stream',
    marbles((m) => {
      const values = {
        a: added(pod('a', '5')),
        b: bookmark('6'),
        e: bookmark('7', { initialEventsEnd: true }),
      };
      const source = m.cold('-a-b-e-b-|', values);
      m.expect(source.pipe(filter(isInitialEventsEnd))).toBeObservable('-----e---|', values);
    }),
  );
});
