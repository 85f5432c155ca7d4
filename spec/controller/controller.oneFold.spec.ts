// controller(): one fold per event (DESIGN, Operators "One fold", Controllers "The store before
// the trigger"). The store a controller's runs read for a watched resource is the shared watch's
// own store of createInformers: the objects folded once for every controller, store and late
// subscriber of that watch, each controller keeping only its own index maps. The watch is a
// subject behind createInformers' `source` seam.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { V1Deployment } from '@kubernetes/client-node';
import { Subject, of, type Subscription } from 'rxjs';
import { controller } from '../../src/controller/controller.js';
import { createInformers, type Informers } from '../../src/operators/createInformers.js';
import { SortedMap } from '../../src/operators/store/SortedMap.js';
import { StoreSnapshot } from '../../src/operators/store/StoreSnapshot.js';
import type { Store } from '../../src/operators/toStore.js';
import { deployments } from '../../src/objects/resources.js';
import { deployment, listOf, modified } from '../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../src/testing/marbles/marbleWatchSource.js';
import type { ClusterConnection, WatchEvent } from '../../src/types.js';
import { until } from '../support/wait.js';

const cluster: ClusterConnection = { name: 'subjects', resolve: () => Promise.reject(new Error()) };
const subscriptions: Subscription[] = [];
afterEach(() => {
  subscriptions.splice(0).forEach((s) => s.unsubscribe());
  jest.restoreAllMocks();
});

const web = (rv: string, generation = 1) => deployment('web', rv, { metadata: { generation } });
const db = (rv: string) => deployment('db', rv, { metadata: { generation: 1 } });

/** Informers over one deployments upstream: a list of web@3 and db@4, then `events`. */
function informersOver(events: Subject<WatchEvent<V1Deployment>>): Informers {
  return createInformers({
    resilience: { random: () => 0 },
    source: (_cluster, resource) =>
      marbleWatchSource({
        resource,
        lists: [() => of(listOf([web('3'), db('4')], '4'))],
        connections: [() => events.asObservable()],
      }),
  });
}

/** What a run read: its key and the deployments store it saw. */
interface Read {
  key: string;
  store: Store<V1Deployment, string>;
}

/** A controller of deployments on `informers` that records what each run read. */
function recording(informers: Informers, indexes?: { byGeneration: (d: V1Deployment) => string }) {
  const reads: Read[] = [];
  subscriptions.push(
    controller<V1Deployment>({
      cluster,
      informers,
      for: { resource: deployments, indexes },
      rateLimit: false,
      reconcile: async (_object, { key, stores }) =>
        void reads.push({ key, store: stores.get(deployments)! }),
    }).subscribe(),
  );
  return reads;
}

const byGeneration = (d: V1Deployment) => String(d.metadata?.generation);
const objectsOf = (store: Store<V1Deployment, string>) =>
  StoreSnapshot.internals(store as StoreSnapshot<V1Deployment>).objects;

describe('controller: the store of a watched resource is the shared watch’s own', () => {
  it('two controllers and a store on one informers read one fold of each event', async () => {
    const events = new Subject<WatchEvent<V1Deployment>>();
    const informers = informersOver(events);
    const shared: Store<V1Deployment>[] = [];
    subscriptions.push(informers.store(cluster, deployments).subscribe((s) => shared.push(s)));
    const plain = recording(informers);
    const indexed = recording(informers, { byGeneration });
    await until(() => plain.length === 2 && indexed.length === 2, 'the first runs of both');
    await new Promise((resolve) => setTimeout(resolve, 10)); // they have ended

    const set = jest.spyOn(SortedMap.prototype, 'set');
    events.next(modified(web('5', 2)));
    await until(() => plain.length === 3 && indexed.length === 3, 'both ran web again');
    const store = shared.at(-1)!;
    expect(store.get('default/web')?.metadata?.resourceVersion).toBe('5');
    // Without indexes: the very snapshot the informers' store emitted for that change.
    expect(plain[2]!.store).toBe(store);
    // With indexes: its own index maps over the same persistent map of the same objects.
    expect(objectsOf(indexed[2]!.store)).toBe(objectsOf(store));
    expect(indexed[2]!.store.byIndex('byGeneration', '2')).toEqual([store.get('default/web')]);
    expect(indexed[2]!.store.byIndex('byGeneration', '2')[0]).toBe(store.get('default/web'));
    // One map set per map that holds web@5: the shared objects' and the indexed controller's
    // byGeneration index (a fold of each controller's own would set it into three more).
    expect(set).toHaveBeenCalledTimes(2);
  });

  it('a controller that joins a synced watch starts from its current store, folding nothing', async () => {
    const events = new Subject<WatchEvent<V1Deployment>>();
    const informers = informersOver(events);
    const shared: Store<V1Deployment>[] = [];
    subscriptions.push(informers.store(cluster, deployments).subscribe((s) => shared.push(s)));
    await until(() => shared.at(-1)?.synced === true, 'the shared store synced');

    const set = jest.spyOn(SortedMap.prototype, 'set');
    const late = recording(informers);
    await until(() => late.length === 2, 'the sync runs of web and db');
    // Its sync read the store the informers' store holds; no ADDED replayed into a fold.
    expect(late.map((read) => read.store)).toEqual([shared.at(-1), shared.at(-1)]);
    expect(late[0]!.store).toBe(shared.at(-1));
    expect(set).not.toHaveBeenCalled();
  });

  it('informers made otherwise (the interface implemented by hand): it folds their events', async () => {
    const events = new Subject<WatchEvent<V1Deployment>>();
    const inner = informersOver(events);
    const shared: Store<V1Deployment>[] = [];
    subscriptions.push(inner.store(cluster, deployments).subscribe((s) => shared.push(s)));
    // Only the public interface: no shared store to follow.
    const wrapped: Informers = {
      events: (...args) => inner.events(...args),
      store: (...args) => inner.store(...args),
      get size() {
        return inner.size;
      },
    };
    const reads = recording(wrapped, { byGeneration });
    await until(() => reads.length === 2, 'the first runs');
    events.next(modified(web('5', 2)));
    await until(() => reads.length === 3, 'web ran again');
    const read = reads[2]!.store;
    expect(read.values()).toEqual(shared.at(-1)!.values());
    expect(read.byIndex('byGeneration', '2')).toEqual([shared.at(-1)!.get('default/web')]);
    // A fold of its own: other maps.
    expect(objectsOf(read)).not.toBe(objectsOf(shared.at(-1)!));
  });
});
