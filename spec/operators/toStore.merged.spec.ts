import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { map, type Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { mergeWatches, type MergedWatchEvent } from '../../src/operators/mergeWatches.js';
import { toStore } from '../../src/operators/toStore.js';
import type { MergedStore, Store } from '../../src/operators/store/Store.js';
import {
  added,
  bookmark,
  deployment,
  errorEvent,
  modified,
  pod,
} from '../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';

type Objects = { pods: V1Pod; deployments: V1Deployment };
type Event = MergedWatchEvent<Objects>;

const tag = (source: keyof Objects, event: WatchEvent<any>) => ({ ...event, source }) as Event;

/** `synced a@5 b@6`: a store's flag and objects. */
const storeView = (store: Store<KubernetesObject>) =>
  [
    ...(store.synced ? ['synced'] : []),
    ...store.values().map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`),
  ].join(' ');

/**
 * What a reader can see of a merged store, as one line a marble can compare:
 * `synced [pods,deployments] pods(synced a@5) deployments(web@7)`.
 */
function view(merged: MergedStore<Objects>): string {
  const stores = (['pods', 'deployments'] as const).map(
    (key) => `${key}(${storeView(merged.store(key))})`,
  );
  return `${merged.synced ? 'synced ' : ''}[${merged.sources.join(',')}] ${stores.join(' ')}`;
}

const values = {
  p: tag('pods', added(pod('a', '5'))),
  P: tag('pods', bookmark('6', { initialEventsEnd: true })),
  d: tag('deployments', added(deployment('web', '7'))),
  D: tag('deployments', bookmark('8', { initialEventsEnd: true })),
  m: tag('pods', modified(pod('a', '9'))),
  x: tag('deployments', errorEvent(403)),
};

/** The views after `p`, then after `P`, of a stream that starts with them. */
const afterP = '[pods] pods(a@5) deployments()';
const afterPP = 'synced [pods] pods(synced a@5) deployments()';

describe('toStore on a merged stream', () => {
  it(
    'keeps one store per source, synced once every source seen is',
    marbles((m) => {
      const source = m.cold<Event>('-p-P-d-D-m-|', values);
      m.expect(source.pipe(toStore(), map(view))).toBeObservable('-1-2-3-4-5-|', {
        1: afterP,
        2: afterPP,
        // A source seen for the first time is awaited again.
        3: '[pods,deployments] pods(synced a@5) deployments(web@7)',
        4: 'synced [pods,deployments] pods(synced a@5) deployments(synced web@7)',
        5: 'synced [pods,deployments] pods(synced a@9) deployments(synced web@7)',
      });
    }),
  );

  it(
    'with config.sources, waits for every declared source, even one that sent nothing, and lists the others after them',
    marbles((m) => {
      const source = m.cold<Event>('-p-P-d-D-|', values);
      const views = {
        1: '[deployments,pods] pods(a@5) deployments()',
        2: '[deployments,pods] pods(synced a@5) deployments()',
        3: '[deployments,pods] pods(synced a@5) deployments(web@7)',
        4: 'synced [deployments,pods] pods(synced a@5) deployments(synced web@7)',
      };
      const declared = source.pipe(toStore({ sources: ['deployments', 'pods'] }), map(view));
      m.expect(declared).toBeObservable('-1-2-3-4-|', views);
      // A source not declared is known from its first event on, after the declared ones.
      const some = source.pipe(toStore({ sources: ['deployments'] }), map(view));
      m.expect(some).toBeObservable('-1-2-3-4-|', views);
    }),
  );

  it(
    'makes a source known by its ERROR event, unless it was declared',
    marbles((m) => {
      const source = m.cold<Event>('-p-P-x-|', values);
      m.expect(source.pipe(toStore(), map(view))).toBeObservable('-1-2-3-|', {
        1: afterP,
        2: afterPP,
        3: '[pods,deployments] pods(synced a@5) deployments()',
      });
      const declared = source.pipe(toStore({ sources: ['pods', 'deployments'] }), map(view));
      m.expect(declared).toBeObservable('-1-2---|', {
        1: '[pods,deployments] pods(a@5) deployments()',
        2: '[pods,deployments] pods(synced a@5) deployments()',
      });
    }),
  );

  it(
    'emits nothing for an event that changes nothing in its source',
    marbles((m) => {
      const source = m.cold<Event>('-p-p-P-P-|', values);
      m.expect(source.pipe(toStore(), map(view))).toBeObservable('-1---2---|', {
        1: afterP,
        2: afterPP,
      });
    }),
  );

  it(
    'never changes a merged snapshot once emitted',
    marbles((m) => {
      const snapshots: MergedStore<Objects>[] = [];
      m.cold<Event>('-p-P-d-m-|', values)
        .pipe(toStore())
        .subscribe((s) => snapshots.push(s));
      m.flush();
      const first = snapshots[0]!;
      expect(view(first)).toEqual(afterP);
      expect(first.store('pods').resourceVersion).toBe('5');
      expect(snapshots[3]!.store('pods').get('default', 'a')?.metadata?.resourceVersion).toBe('9');
      // Getters over private fields: nothing to assign, and the list of sources is frozen.
      expect(Object.keys(first)).toEqual([]);
      expect(() => {
        (first as { synced: boolean }).synced = true;
      }).toThrow(TypeError);
      expect(Object.isFrozen(first.sources)).toBe(true);
      expect(JSON.stringify(first)).toBe('{"sources":["pods"],"synced":false}');
    }),
  );

  it(
    'errors on an event without a source',
    marbles((m) => {
      const untagged = added(pod('z', '3')) as unknown as Event;
      const source = m.cold<Event>('-p-u-|', { ...values, u: untagged });
      m.expect<unknown>(source.pipe(toStore(), map(view))).toBeObservable(
        '-1-#',
        { 1: afterP },
        new TypeError('toStore: an event without a source on a merged stream (ADDED)'),
      );
      const declared = m.cold<Event>('-u-|', { u: untagged });
      m.expect<unknown>(declared.pipe(toStore({ sources: ['pods'] }))).toBeObservable(
        '-#',
        undefined,
        new TypeError('toStore: an event without a source on a merged stream (ADDED)'),
      );
    }),
  );

  it('types each store after its source', () => {
    const merged$ = null as unknown as Observable<Event>;
    const check = () =>
      merged$.pipe(toStore({ sources: ['pods', 'deployments'] })).subscribe((s) => {
        const pods: Store<V1Pod> = s.store('pods');
        const replicas: number | undefined = s.store('deployments').get('x/y')?.spec?.replicas;
        // @ts-expect-error not a source of this stream
        s.store('nodes');
        // @ts-expect-error not a source of this stream
        merged$.pipe(toStore({ sources: ['nodes'] }));
        return [pods, replicas];
      });
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });

  it('types the store of mergeWatches() per source key', () => {
    const pods = null as unknown as Observable<WatchEvent<V1Pod>>;
    const deployments = null as unknown as Observable<WatchEvent<V1Deployment>>;
    const check = () => {
      return mergeWatches({ pods, deployments })
        .pipe(toStore())
        .subscribe((s) => {
          const web: V1Deployment | undefined = s.store('deployments').get('default', 'web');
          // @ts-expect-error a pod store holds no deployments
          const wrong: V1Deployment | undefined = s.store('pods').get('default', 'web');
          return [web, wrong];
        });
    };
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
