import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { Observable, Subject, defer, retry, take, type Subscription } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import type { MergedWatchEvent } from '../../src/operators/mergeWatches.js';
import { shareWatch } from '../../src/operators/shareWatch.js';
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

const a5 = pod('a', '5');
const b6 = pod('b', '6');
const end = (rv: string) => bookmark<V1Pod>(rv, { initialEventsEnd: true });

describe('shareWatch', () => {
  it(
    'relays the upstream as it is to one subscriber',
    marbles((m) => {
      const values = { a: added(a5), e: end('7'), x: errorEvent<V1Pod>(500), m: modified(a5) };
      const source = m.cold('-a-e-x-m-|', values);
      m.expect(source.pipe(shareWatch())).toBeObservable('-a-e-x-m-|', values);
    }),
  );

  it(
    'replays known objects and the end bookmark at the last version to a late subscriber',
    marbles((m) => {
      const values = {
        a: added(a5),
        b: added(b6),
        e: end('7'),
        k: bookmark<V1Pod>('8'),
        m: modified(pod('a', '9')),
        d: deleted(pod('b', '10')),
        A: added(a5),
        B: added(b6),
        E: end('8'),
      };
      const source = m.cold('-a-b-e-k-------m-d-|', values);
      const shared = source.pipe(shareWatch());
      m.expect(shared).toBeObservable('-a-b-e-k-------m-d-|', values);
      m.expect(shared, '---------^').toBeObservable('---------(ABE)-m-d-|', values);
      m.expect(source).toHaveSubscriptions('^------------------!');
    }),
  );

  it(
    'replays the last version of each object, and no deleted one',
    marbles((m) => {
      const values = {
        a: added(a5),
        b: added(b6),
        m: modified(pod('a', '9')),
        d: deleted(pod('b', '10')),
        A: added(pod('a', '9')),
      };
      const shared = m.cold('-a-b-m-d-----|', values).pipe(shareWatch());
      m.expect(shared).toBeObservable('-a-b-m-d-----|', values);
      m.expect(shared, '---------^').toBeObservable('---------A---|', values);
    }),
  );

  it(
    'replays in key order, whatever order the objects came in',
    marbles((m) => {
      const values = { a: added(a5), b: added(b6) };
      const shared = m.cold('-b-a-----|', values).pipe(shareWatch());
      m.expect(shared).toBeObservable('-b-a-----|', values);
      m.expect(shared, '----^').toBeObservable('----(ab)-|', values);
    }),
  );

  it(
    'replays no bookmark before the initial events have ended, nor any ERROR event',
    marbles((m) => {
      const values = { a: added(a5), x: errorEvent<V1Pod>(500), e: end('7') };
      const shared = m.cold('-a-x---e-|', values).pipe(shareWatch());
      m.expect(shared).toBeObservable('-a-x---e-|', values);
      m.expect(shared, '-----^').toBeObservable('-----a-e-|', values);
    }),
  );

  it(
    'keeps the last version through an event that has none',
    marbles((m) => {
      const versionless = { ...pod('c', '1'), metadata: { name: 'c', namespace: 'default' } };
      const values = {
        a: added(a5),
        e: end('7'),
        c: { type: 'ADDED', object: versionless } as WatchEvent<V1Pod>,
        A: added(a5),
        C: { type: 'ADDED', object: versionless, resourceVersion: undefined } as WatchEvent<V1Pod>,
      };
      const shared = m.cold('-a-e-c------|', values).pipe(shareWatch());
      m.expect(shared).toBeObservable('-a-e-c------|', values);
      m.expect(shared, '-------^').toBeObservable('-------(ACe)|', values);
    }),
  );

  it(
    'releases the upstream when the last subscriber leaves, and restarts it fresh',
    marbles((m) => {
      const values = { a: added(a5), e: end('7'), m: modified(pod('a', '8')) };
      const source = m.cold('-a-e-m--', values);
      const shared = source.pipe(shareWatch());
      m.expect(shared, '^---!').toBeObservable('-a-e', values);
      m.expect(shared, '--^-----!').toBeObservable('--ae-m', values);
      // Nothing of the first connection is replayed: the state went with it.
      m.expect(shared, '----------^---!').toBeObservable('-----------a-e', values);
      m.expect(source).toHaveSubscriptions(['^-------!', '----------^---!']);
    }),
  );

  it(
    'errors every subscriber, and a later subscriber starts afresh',
    marbles((m) => {
      const values = { a: added(a5), e: end('7') };
      const source = m.cold('-a-e-#', values, 'boom');
      const shared = source.pipe(shareWatch());
      m.expect(shared).toBeObservable('-a-e-#', values, 'boom');
      m.expect(shared, '--^').toBeObservable('--ae-#', values, 'boom');
      m.expect(shared, '-------^').toBeObservable('--------a-e-#', values, 'boom');
      m.expect(source).toHaveSubscriptions(['^----!', '-------^----!']);
    }),
  );

  it(
    'completes every subscriber, and a later subscriber starts afresh',
    marbles((m) => {
      const values = { a: added(a5) };
      const source = m.cold('-a-|', values);
      const shared = source.pipe(shareWatch());
      m.expect(shared).toBeObservable('-a-|', values);
      m.expect(shared, '--^').toBeObservable('--a|', values);
      m.expect(shared, '-----^').toBeObservable('------a-|', values);
      m.expect(source).toHaveSubscriptions(['^--!', '-----^--!']);
    }),
  );

  it(
    'lets a subscriber that retries share the new connection',
    marbles((m) => {
      const values = { a: added(a5), b: added(b6), c: modified(pod('b', '7')) };
      const first = m.cold('-a-#', values);
      const second = m.cold('-b-c-', values);
      let connections = 0;
      const shared = defer(() => (connections++ === 0 ? first : second)).pipe(shareWatch());
      m.expect(shared.pipe(retry(1))).toBeObservable('-a--b-c-', values);
      m.expect(shared, '-----^').toBeObservable('-----bc-', values);
      m.flush();
      expect(connections).toBe(2);
    }),
  );

  it(
    'lets a subscriber resubscribe from its error callback onto a new connection',
    marbles((m) => {
      const values = { a: added(a5), b: added(b6), c: modified(pod('b', '7')) };
      const first = m.cold('-a-#', values);
      const second = m.cold('-b-c-', values);
      let connections = 0;
      const shared = defer(() => (connections++ === 0 ? first : second)).pipe(shareWatch());
      // Unlike retry(), a plain error callback runs before its own subscription is torn down.
      const resubscribing = new Observable<WatchEvent<V1Pod>>((subscriber) => {
        let inner: Subscription | undefined;
        const outer = shared.subscribe({
          next: (e) => subscriber.next(e),
          error: () => (inner = shared.subscribe(subscriber)),
        });
        return () => {
          outer.unsubscribe();
          inner?.unsubscribe();
        };
      });
      m.expect(resubscribing).toBeObservable('-a--b-c-', values);
      m.expect(shared, '-----^').toBeObservable('-----bc-', values);
      m.flush();
      expect(connections).toBe(2);
    }),
  );

  it(
    'replays each source of a merged stream with its tag and its own bookmark',
    marbles((m) => {
      type Event = MergedWatchEvent<{ pods: V1Pod; deployments: V1Deployment }>;
      const tag = (source: string, event: WatchEvent<any>) => ({ ...event, source }) as Event;
      const values = {
        p: tag('pods', added(a5)),
        P: tag('pods', end('6')),
        d: tag('deployments', added(deployment('web', '7'))),
        q: tag('pods', added(b6)),
      };
      const shared = m.cold<Event>('-p-P-d------q-|', values).pipe(shareWatch());
      m.expect(shared).toBeObservable('-p-P-d------q-|', values);
      m.expect(shared, '-------^').toBeObservable('-------(pPd)q-|', values);
    }),
  );

  it(
    'keys objects with config.key',
    marbles((m) => {
      const prod = pod('a', '6', { metadata: { namespace: 'prod' } });
      const values = { a: added(a5), p: added(prod) };
      const source = m.cold('-a-p-----|', values);
      const byName = source.pipe(shareWatch({ key: (o) => o.metadata!.name! }));
      m.expect(byName).toBeObservable('-a-p-----|', values);
      m.expect(byName, '-----^').toBeObservable('-----p---|', values);
      const byDefault = source.pipe(shareWatch());
      m.expect(byDefault).toBeObservable('-a-p-----|', values);
      m.expect(byDefault, '-----^').toBeObservable('-----(ap)|', values);
    }),
  );

  it(
    'errors every subscriber when the key function throws, and releases the upstream',
    marbles((m) => {
      const failure = new Error('no name');
      const values = { a: added(a5), b: added(b6) };
      const source = m.cold('-a-b-a-', values);
      const key = (p: V1Pod) => {
        if (p.metadata?.name === 'b') throw failure;
        return 'same';
      };
      const shared = source.pipe(shareWatch({ key }));
      m.expect(shared).toBeObservable('-a-#', values, failure);
      m.expect(shared, '--^').toBeObservable('--a#', values, failure);
      m.expect(source).toHaveSubscriptions('^--!');
    }),
  );

  it('releases a synchronous upstream whose first event breaks the key function', () => {
    let released = false;
    let keyCalls = 0;
    const source = new Observable<WatchEvent<V1Pod>>((subscriber) => {
      subscriber.next(added(a5));
      subscriber.next(added(b6));
      return () => (released = true);
    });
    let error: unknown;
    const key = () => {
      keyCalls++;
      throw new Error('bad key');
    };
    source.pipe(shareWatch({ key })).subscribe({ error: (e) => (error = e) });
    expect(error).toEqual(new Error('bad key'));
    expect(keyCalls).toBe(1);
    expect(released).toBe(true);
  });

  it('stops replaying to a subscriber that has had enough', () => {
    let metadataReads = 0;
    const counted = (name: string) => {
      const { metadata, ...rest } = pod(name, '5');
      return Object.defineProperty(rest, 'metadata', {
        enumerable: true,
        get: () => (metadataReads++, metadata),
      }) as V1Pod;
    };
    const upstream = new Subject<WatchEvent<V1Pod>>();
    const shared = upstream.pipe(shareWatch());
    shared.subscribe();
    for (let i = 0; i < 50; i++) upstream.next(added(counted(`p${String(i).padStart(2, '0')}`)));
    metadataReads = 0;
    const names: string[] = [];
    shared.pipe(take(2)).subscribe((e) => {
      if (e.type !== 'ERROR') names.push(e.object.metadata!.name!);
    });
    expect(names).toEqual(['p00', 'p01']);
    expect(metadataReads).toBeLessThanOrEqual(4); // 2 replayed, 2 read above; not 50
    expect(upstream.observed).toBe(true); // the first subscriber still holds the connection
  });

  it('keeps the event type', () => {
    const pods$ = null as unknown as Observable<WatchEvent<V1Pod>>;
    const check = () => {
      const shared: Observable<WatchEvent<V1Pod>> = pods$.pipe(shareWatch());
      // @ts-expect-error the key function gets a V1Pod
      pods$.pipe(shareWatch({ key: (o: { id: number }) => String(o.id) }));
      return shared;
    };
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
