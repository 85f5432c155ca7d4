import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { objects } from '../../src/operators/objects.js';
import {
  added,
  bookmark,
  deleted,
  errorEvent,
  modified,
  pod,
} from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';

describe('objects', () => {
  it(
    'maps ADDED, MODIFIED and DELETED events to their objects, dropping bookmarks and errors',
    marbles((m) => {
      const a = pod('a', '5');
      const b = pod('b', '6');
      const a2 = pod('a', '8');
      const source = m.cold<WatchEvent<V1Pod>>('-A-M-k-x-D-|', {
        A: added(a),
        M: modified(b),
        k: bookmark('7'),
        x: errorEvent(500),
        D: deleted(a2),
      });
      m.expect(source.pipe(objects())).toBeObservable('-a-b-----c-|', { a, b, c: a2 });
    }),
  );

  it(
    'passes an error notification through',
    marbles((m) => {
      const a = pod('a', '5');
      const source = m.cold<WatchEvent<V1Pod>>('-A-#', { A: added(a) });
      m.expect(source.pipe(objects())).toBeObservable('-a-#', { a });
    }),
  );

  it('gives the object type', () => {
    const pods$ = null as unknown as Observable<WatchEvent<V1Pod>>;
    const check = () =>
      pods$.pipe(objects()).subscribe((p) => {
        const phase: string | undefined = p.status?.phase;
        return phase;
      });
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
