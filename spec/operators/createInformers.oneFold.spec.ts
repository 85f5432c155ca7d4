// One fold per event in a shared watch of createInformers (DESIGN, Operators, "One fold"): the
// default store and the replay of a late events subscriber are the same fold of the objects.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { marbles, type Context } from 'rxjs-marbles/jest';
import { marbleCluster, marbleInformers } from './support/marbleInformers.js';
import type { Store } from '../../src/operators/toStore.js';
import { SortedMap } from '../../src/operators/store/SortedMap.js';
import { StoreSnapshot } from '../../src/operators/store/StoreSnapshot.js';
import { defaultKey } from '../../src/objects/defaultKey.js';
import { isInitialEventsEnd } from '../../src/objects/isInitialEventsEnd.js';
import { pods } from '../../src/objects/resources.js';
import { deleted, modified, pod } from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';

const cluster = marbleCluster;
const a3 = pod('a', '3');
const b4 = pod('b', '4');
const a5 = pod('a', '5');

/** Informers over one upstream: a list of a@3 and b@4 at 4, then a watch sending a@5 at 2. */
const informersOf = (m: Context) => marbleInformers(m, [a3, b4], '4', '--m', { m: modified(a5) });

/** What an event says, for comparing timelines. */
const describeEvent = (event: WatchEvent<V1Pod>) =>
  event.type === 'ERROR'
    ? 'ERROR'
    : `${event.type} ${event.object.metadata?.name ?? ''}@${event.resourceVersion ?? ''}` +
      (isInitialEventsEnd(event) ? ' end' : '');

describe('createInformers: one fold per event', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it(
    'replays a late events subscriber from the store: ADDED per stored object, the end bookmark',
    marbles((m) => {
      const informers = informersOf(m);
      const stores: Store<V1Pod>[] = [];
      const late: WatchEvent<V1Pod>[] = [];
      const set = jest.spyOn(SortedMap.prototype, 'set');
      const subscriptions = [informers.store(cluster, pods).subscribe((s) => stores.push(s))];
      m.scheduler.schedule(
        () => subscriptions.push(informers.events(cluster, pods).subscribe((e) => late.push(e))),
        5,
      );
      m.scheduler.schedule(() => subscriptions.forEach((s) => s.unsubscribe()), 10);
      m.flush();
      const last = stores.at(-1)!;
      expect(last.values()).toEqual([a5, b4]);
      expect(late.map(describeEvent)).toEqual(['ADDED a@5', 'ADDED b@4', 'BOOKMARK @5 end']);
      // The very objects the store holds, not copies.
      expect(late[0]!.type === 'ADDED' && late[0]!.object).toBe(last.get('default/a'));
      // a, b and a@5 were each set into one map only: the store's, which the replay read.
      expect(set).toHaveBeenCalledTimes(3);
    }),
  );

  it(
    'gives a late first store subscriber the current snapshot once, not one per replayed object',
    marbles((m) => {
      const informers = informersOf(m);
      const stores: Store<V1Pod>[] = [];
      const events = informers.events(cluster, pods).subscribe();
      m.scheduler.schedule(() => {
        const store = informers.store(cluster, pods).subscribe((s) => stores.push(s));
        m.scheduler.schedule(() => (store.unsubscribe(), events.unsubscribe()), 5);
      }, 5);
      m.flush();
      // At 5: the synced store of a@5 and b; nothing after (the watch sends nothing more).
      expect(stores).toHaveLength(1);
      expect(stores[0]!.synced).toBe(true);
      expect(stores[0]!.resourceVersion).toBe('5');
      expect(stores[0]!.values()).toEqual([a5, b4]);
    }),
  );

  it(
    'shares the snapshots of the default store whether its key is given or not',
    marbles((m) => {
      const informers = informersOf(m);
      const seen: [Store<V1Pod>[], Store<V1Pod>[], Store<V1Pod>[]] = [[], [], []];
      const subscriptions = [
        informers.store(cluster, pods).subscribe((s) => seen[0].push(s)),
        informers.store(cluster, pods, {}, { key: defaultKey }).subscribe((s) => seen[1].push(s)),
        informers
          .store(cluster, pods, {}, { key: (p) => `${p.metadata?.namespace}/${p.metadata?.name}` })
          .subscribe((s) => seen[2].push(s)),
      ];
      m.scheduler.schedule(() => subscriptions.forEach((s) => s.unsubscribe()), 5);
      m.flush();
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[1].at(-1)).toBe(seen[0].at(-1));
      // Another key function folds on its own: equal content, other snapshots.
      expect(seen[2].at(-1)!.values()).toEqual(seen[0].at(-1)!.values());
      expect(seen[2].at(-1)).not.toBe(seen[0].at(-1));
    }),
  );
  it(
    "keeps a default-key store's indexes beside the objects folded once, through changes",
    marbles((m) => {
      const on = (name: string, version: string, node: string) =>
        pod(name, version, { spec: { containers: [], nodeName: node } });
      const informers = marbleInformers(m, [on('a', '3', 'n1'), on('b', '4', 'n1')], '4', '--m-d', {
        m: modified(on('a', '5', 'n2')),
        d: deleted(b4),
      });
      const byNode = (p: V1Pod) => p.spec?.nodeName;
      const plain: Store<V1Pod>[] = [];
      const indexed: Store<V1Pod, 'byNode'>[] = [];
      const subscriptions = [informers.store(cluster, pods).subscribe((s) => plain.push(s))];
      // Joins late: its indexes are built from the objects, then follow each change.
      m.scheduler.schedule(() => {
        subscriptions.push(
          informers
            .store(cluster, pods, {}, { indexes: { byNode } })
            .subscribe((s) => indexed.push(s)),
        );
      }, 1);
      m.scheduler.schedule(() => subscriptions.forEach((s) => s.unsubscribe()), 10);
      m.flush();
      const names = (objects: readonly V1Pod[]) => objects.map((p) => p.metadata?.name);
      expect(indexed.map((s) => names(s.byIndex('byNode', 'n1')))).toEqual([['a', 'b'], ['b'], []]);
      expect(indexed.map((s) => names(s.byIndex('byNode', 'n2')))).toEqual([[], ['a'], ['a']]);
      // The same persistent map of objects as the default store's: one fold.
      const objectsOf = (store: Store<V1Pod, string>) =>
        StoreSnapshot.internals(store as StoreSnapshot<V1Pod>).objects;
      expect(objectsOf(indexed.at(-1)!)).toBe(objectsOf(plain.at(-1)!));
      expect(indexed.at(-1)!.synced).toBe(true);
    }),
  );

  it(
    'fails an indexed store whose indexer throws, and not the shared watch',
    marbles((m) => {
      const informers = informersOf(m);
      const errors: unknown[] = [];
      const events: WatchEvent<V1Pod>[] = [];
      const subscriptions = [
        informers.events(cluster, pods).subscribe((e) => events.push(e)),
        informers
          .store(cluster, pods, {}, { indexes: { bad: () => [1 as unknown as string] } })
          .subscribe({ error: (e) => errors.push(e) }),
      ];
      m.scheduler.schedule(() => subscriptions.forEach((s) => s.unsubscribe()), 5);
      m.flush();
      expect(errors).toEqual([expect.any(TypeError)]);
      expect(events.map(describeEvent)).toEqual([
        'ADDED a@3',
        'ADDED b@4',
        'BOOKMARK @4 end',
        'MODIFIED a@5',
      ]);
    }),
  );
});
