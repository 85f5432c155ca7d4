import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { skipBookmarks } from '../../src/operators/skipBookmarks.js';
import { added, bookmark, errorEvent, modified, pod } from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';

describe('skipBookmarks', () => {
  it(
    'drops bookmarks, initial-events-end included, and nothing else',
    marbles((m) => {
      const values = {
        a: added(pod('a', '5')),
        b: bookmark<V1Pod>('6'),
        e: bookmark<V1Pod>('7', { initialEventsEnd: true }),
        m: modified(pod('a', '8')),
        x: errorEvent<V1Pod>(500),
      };
      const source = m.cold('-a-b-e-m-x-#', values);
      m.expect<unknown>(source.pipe(skipBookmarks())).toBeObservable('-a-----m-x-#', values);
    }),
  );

  it('narrows the event type', () => {
    const pods$ = null as unknown as Observable<WatchEvent<V1Pod>>;
    const check = () =>
      pods$.pipe(skipBookmarks()).subscribe((e) => {
        // @ts-expect-error BOOKMARK is gone from the type
        const bookmarkType: 'BOOKMARK' = e.type;
        return bookmarkType;
      });
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
