import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { throwOnWatchError } from '../../src/operators/throwOnWatchError.js';
import {
  added,
  bookmark,
  errorEvent,
  expired,
  modified,
  pod,
} from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';

describe('throwOnWatchError', () => {
  it(
    'turns the first ERROR event into an error notification with its WatchError',
    marbles((m) => {
      const gone = expired<V1Pod>();
      const values = { a: added(pod('a', '5')), b: bookmark<V1Pod>('6'), x: gone };
      const source = m.cold('-a-b-x-a-|', values);
      const error = gone.type === 'ERROR' ? gone.error : undefined;
      m.expect<unknown>(source.pipe(throwOnWatchError())).toBeObservable('-a-b-#', values, error);
      // The upstream is released at the error: a watch's request is aborted there.
      m.expect(source).toHaveSubscriptions('^----!');
    }),
  );

  it(
    'passes object events, completion and errors through',
    marbles((m) => {
      const values = { a: added(pod('a', '5')), m: modified(pod('a', '6')) };
      m.expect<unknown>(m.cold('-a-m-|', values).pipe(throwOnWatchError())).toBeObservable(
        '-a-m-|',
        values,
      );
      m.expect<unknown>(m.cold('-a-#', values, 'boom').pipe(throwOnWatchError())).toBeObservable(
        '-a-#',
        values,
        'boom',
      );
    }),
  );

  it('removes ERROR from the event type', () => {
    const pods$ = null as unknown as Observable<WatchEvent<V1Pod>>;
    const check = () =>
      pods$.pipe(throwOnWatchError()).subscribe((e) => {
        const object: V1Pod = e.object; // no ERROR member left to narrow away
        return object;
      });
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
    expect(errorEvent(500).type).toBe('ERROR');
  });
});
