import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import type { MergedWatchEvent } from '../../src/operators/mergeWatches.js';
import { ofEventType } from '../../src/operators/ofEventType.js';
import {
  added,
  bookmark,
  deleted,
  deployment,
  errorEvent,
  modified,
  pod,
} from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';
import type { WatchError } from '../../src/WatchError.js';

const values = {
  a: added(pod('a', '5')),
  m: modified(pod('a', '6')),
  b: bookmark<V1Pod>('7'),
  d: deleted(pod('a', '8')),
  x: errorEvent<V1Pod>(500),
};

describe('ofEventType', () => {
  it(
    'lets through the events of the given types',
    marbles((m) => {
      const source = m.cold('-a-m-b-d-x-|', values);
      m.expect<unknown>(source.pipe(ofEventType('ADDED', 'DELETED'))).toBeObservable(
        '-a-----d---|',
        values,
      );
      m.expect<unknown>(source.pipe(ofEventType('ERROR'))).toBeObservable('---------x-|', values);
      m.expect<unknown>(source.pipe(ofEventType('BOOKMARK'))).toBeObservable(
        '-----b-----|',
        values,
      );
    }),
  );

  it(
    'passes errors and completion through',
    marbles((m) => {
      const source = m.cold('-a-m-#', values);
      m.expect<unknown>(source.pipe(ofEventType('MODIFIED'))).toBeObservable('---m-#', values);
    }),
  );

  it('narrows the event type', () => {
    const pods$ = null as unknown as Observable<WatchEvent<V1Pod>>;
    const check = () => {
      pods$.pipe(ofEventType('DELETED')).subscribe((e) => {
        const type: 'DELETED' = e.type;
        const object: V1Pod = e.object;
        return [type, object];
      });
      pods$.pipe(ofEventType('ERROR')).subscribe((e) => {
        const error: WatchError = e.error;
        return error;
      });
      // @ts-expect-error not an event type
      pods$.pipe(ofEventType('GONE'));
    };
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });

  it(
    'narrows tagged events per source',
    marbles((m) => {
      type Merged = MergedWatchEvent<{ pods: V1Pod; deployments: V1Deployment }>;
      const p = { ...added(pod('a', '5')), source: 'pods' } as Merged;
      const d = { ...added(deployment('web', '6')), source: 'deployments' } as Merged;
      const x = { ...errorEvent(500), source: 'pods' } as Merged;
      const source: Observable<Merged> = m.cold('-p-d-x-|', { p, d, x });
      const addedOnly = source.pipe(ofEventType('ADDED'));
      m.expect<unknown>(addedOnly).toBeObservable('-p-d---|', { p, d });
      addedOnly.subscribe((e) => {
        if (e.source === 'deployments') {
          const replicas: number | undefined = e.object.spec?.replicas;
          return replicas;
        }
        return undefined;
      });
    }),
  );
});
