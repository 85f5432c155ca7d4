// SharedWatch.changes (through informerChanges, the controller's way in): the changes of a shared
// watch's own store as a follower with its indexes sees them, with no fold of its own.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { marbles, type Context } from 'rxjs-marbles/jest';
import { marbleCluster, marbleInformers } from '../support/marbleInformers.js';
import { createInformers } from '../../../src/operators/createInformers.js';
import { informerChanges } from '../../../src/operators/informerChanges.js';
import type { StoreChange } from '../../../src/operators/share/SharedWatch.js';
import { StoreIndexes } from '../../../src/operators/store/IndexedObjects.js';
import { SortedMap } from '../../../src/operators/store/SortedMap.js';
import { StoreSnapshot } from '../../../src/operators/store/StoreSnapshot.js';
import type { Store } from '../../../src/operators/toStore.js';
import { pods } from '../../../src/objects/resources.js';
import { deleted, modified, pod } from '../../../src/testing/marbles/builders.js';

const cluster = marbleCluster;
const on = (name: string, version: string, node: string) =>
  pod(name, version, { spec: { containers: [], nodeName: node } });
const a3 = on('a', '3', 'n1');
const b4 = on('b', '4', 'n1');
const a5 = on('a', '5', 'n2');

/** Informers over one upstream: a list of a@3 and b@4 at 4, then a@5 at 2 and b deleted at 4. */
const informersOf = (m: Context) =>
  marbleInformers(m, [a3, b4], '4', '--m-d', { m: modified(a5), d: deleted(b4) });

const byNode = { byNode: (p: V1Pod) => p.spec?.nodeName };
const describeChange = ({ event, before, after }: StoreChange<V1Pod>) =>
  `${event ? `${event.type} ${event.object.metadata?.name ?? ''}` : 'current'}: ` +
  `${before?.size ?? '-'} -> ${after.size}${after.synced ? ' synced' : ''}`;

describe('SharedWatch.changes', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it(
    'gives each event with the store before and after it, the very snapshots of the shared store',
    marbles((m) => {
      const informers = informersOf(m);
      const stores: Store<V1Pod>[] = [];
      const changes: StoreChange<V1Pod>[] = [];
      const subscriptions = [
        informers.store(cluster, pods).subscribe((s) => stores.push(s)),
        informerChanges(informers, cluster, pods, {}, StoreIndexes.NONE)!.subscribe((c) =>
          changes.push(c as StoreChange<V1Pod>),
        ),
      ];
      m.scheduler.schedule(() => subscriptions.forEach((s) => s.unsubscribe()), 10);
      m.flush();
      expect(changes.map(describeChange)).toEqual([
        'ADDED a: - -> 1',
        'ADDED b: 1 -> 2',
        'BOOKMARK : 2 -> 2 synced',
        'MODIFIED a: 2 -> 2 synced',
        'DELETED b: 2 -> 1 synced',
      ]);
      // No indexes: the snapshots the informers' store emitted, each change's before the last's after.
      expect(changes.map((c) => c.after)).toEqual(stores);
      changes.forEach((c, i) => expect(c.after).toBe(stores[i]));
      changes.slice(1).forEach((c, i) => expect(c.before).toBe(changes[i]!.after));
    }),
  );

  it(
    'gives a late follower the current store at once, then follows with its own indexes',
    marbles((m) => {
      const informers = informersOf(m);
      const stores: Store<V1Pod>[] = [];
      const changes: StoreChange<V1Pod>[] = [];
      const subscriptions = [informers.store(cluster, pods).subscribe((s) => stores.push(s))];
      let set: ReturnType<typeof jest.spyOn> | undefined;
      m.scheduler.schedule(() => {
        set = jest.spyOn(SortedMap.prototype, 'set');
        const indexes = StoreIndexes.of(byNode) as StoreIndexes<V1Pod>;
        subscriptions.push(
          informerChanges(informers, cluster, pods, {}, indexes)!.subscribe((c) =>
            changes.push(c as StoreChange<V1Pod>),
          ),
        );
      }, 1);
      m.scheduler.schedule(() => subscriptions.forEach((s) => s.unsubscribe()), 10);
      m.flush();
      expect(changes.map(describeChange)).toEqual([
        'current: - -> 2 synced',
        'MODIFIED a: 2 -> 2 synced',
        'DELETED b: 2 -> 1 synced',
      ]);
      const names = (objects: readonly V1Pod[]) => objects.map((p) => p.metadata?.name);
      expect(changes.map((c) => names(c.after.byIndex('byNode', 'n1')))).toEqual([
        ['a', 'b'],
        ['b'],
        [],
      ]);
      // Over the shared objects: the same persistent map as the shared store's.
      const objectsOf = (store: Store<V1Pod, string>) =>
        StoreSnapshot.internals(store as StoreSnapshot<V1Pod>).objects;
      expect(objectsOf(changes.at(-1)!.after)).toBe(objectsOf(stores.at(-1)!));
      // Sets after it joined: a@5 into the shared objects; its index built (a, b), then a@5.
      expect(set).toHaveBeenCalledTimes(4);
    }),
  );

  it(
    'fails a follower whose indexer throws, and not the shared watch',
    marbles((m) => {
      const informers = informersOf(m);
      const stores: Store<V1Pod>[] = [];
      const errors: unknown[] = [];
      const bad = StoreIndexes.of({ bad: () => [1 as unknown as string] }) as StoreIndexes<V1Pod>;
      const subscriptions = [
        informers.store(cluster, pods).subscribe((s) => stores.push(s)),
        informerChanges(informers, cluster, pods, {}, bad)!.subscribe({
          error: (e) => errors.push(e),
        }),
      ];
      m.scheduler.schedule(() => subscriptions.forEach((s) => s.unsubscribe()), 10);
      m.flush();
      expect(errors).toEqual([expect.any(TypeError)]);
      expect(stores.at(-1)!.values()).toEqual([a5]);
    }),
  );

  it('is undefined for informers not made by createInformers', () => {
    const made = createInformers();
    const byHand = { events: made.events, store: made.store, size: 0 };
    expect(informerChanges(byHand, cluster, pods, {}, StoreIndexes.NONE)).toBeUndefined();
  });
});
