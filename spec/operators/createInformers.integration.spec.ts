// createInformers against a real FakeKubeApiServer: the server counts the watches that identical
// and different requests open.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { createInformers } from '../../src/operators/createInformers.js';
import { ownerIndex } from '../../src/operators/ownerIndex.js';
import type { Store } from '../../src/operators/toStore.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { ResourceRef, WatchEvent } from '../../src/types.js';
import { until } from '../support/wait.js';

let server: FakeKubeApiServer | undefined;
const subscriptions: Subscription[] = [];

afterEach(async () => {
  subscriptions.splice(0).forEach((s) => s.unsubscribe());
  await server?.stop();
  server = undefined;
});

async function started(): Promise<FakeKubeApiServer> {
  server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 });
  for (const [name, app] of [
    ['a', 'web'],
    ['b', 'web'],
    ['c', 'db'],
  ] as const) {
    server.create(pods, pod(name, '', { metadata: { labels: { app } } }));
  }
  return server;
}

/** The watch requests (not lists) the server received for `path`. */
const watchesOf = (fake: FakeKubeApiServer, path = '/api/v1/pods') =>
  fake.requests.filter((r) => r.watch && r.path === path).length;

describe('createInformers against FakeKubeApiServer', () => {
  it('serves 50 subscribers of the same store from one watch and one fold, and closes it after the last', async () => {
    const fake = await started();
    const kc = fake.kubeConfig();
    const informers = createInformers();
    const latest: Store<V1Pod>[] = [];
    for (let i = 0; i < 50; i++) {
      const store$ = informers.store(kc, pods); // a new call each time: requests are compared
      subscriptions.push(store$.subscribe((s) => (latest[i] = s)));
    }
    await until(() => latest.length === 50 && latest.every((s) => s.synced), 'every store synced');
    fake.create(pods, pod('d', ''));
    await until(() => latest.every((s) => s.get('default', 'd') !== undefined), 'd everywhere');

    expect(watchesOf(fake)).toBe(1);
    expect(fake.requests.filter((r) => !r.watch && r.path === '/api/v1/pods')).toHaveLength(1);
    expect(fake.openWatches).toBe(1);
    expect(informers.size).toBe(1);
    // One fold: every subscriber holds the very same snapshot.
    expect(new Set(latest).size).toBe(1);
    expect(latest[0]!.size).toBe(4);

    subscriptions.splice(0, 49).forEach((s) => s.unsubscribe());
    expect(fake.openWatches).toBe(1);
    subscriptions.splice(0).forEach((s) => s.unsubscribe());
    expect(informers.size).toBe(0);
    await until(() => fake.openWatches === 0, 'the watch closed on the server');
  });

  it('does not share between different selectors, namespaces, shapes or cluster objects', async () => {
    const fake = await started();
    const kc = fake.kubeConfig();
    const informers = createInformers();
    const metadataPods = { ...pods, shape: 'metadata' } as ResourceRef<V1Pod>;
    const stores = [
      informers.store(kc, pods, { labelSelector: 'app=web' }),
      informers.store(kc, pods, { labelSelector: 'app=web' }), // shared with the first
      informers.store(kc, pods, { labelSelector: 'app=db' }),
      informers.store(kc, pods, { fieldSelector: 'metadata.name=a' }),
      informers.store(kc, pods, { namespace: 'default' }),
      informers.store(kc, metadataPods),
      informers.store(kc, pods),
      informers.store(fake.kubeConfig(), pods), // an equal but distinct cluster object
    ];
    const latest: (Store<V1Pod> | undefined)[] = stores.map(() => undefined);
    stores.forEach((store$, i) => subscriptions.push(store$.subscribe((s) => (latest[i] = s))));
    await until(() => latest.every((s) => s?.synced), 'every store synced');

    expect(informers.size).toBe(7);
    await until(
      () => fake.openWatches === 7,
      () => `7 watches, not ${fake.openWatches}`,
    );
    expect(watchesOf(fake)).toBe(6);
    expect(watchesOf(fake, '/api/v1/namespaces/default/pods')).toBe(1);
    expect(latest.map((s) => s!.size)).toEqual([2, 2, 1, 1, 3, 3, 3, 3]);
    expect(latest[0]).toBe(latest[1]);
  });

  it('gives a late store subscriber the current snapshot synchronously, and shares indexes', async () => {
    const fake = await started();
    const kc = fake.kubeConfig();
    const informers = createInformers();
    const indexes = { byOwner: ownerIndex };
    let first: Store<V1Pod, 'byOwner'> | undefined;
    subscriptions.push(informers.store(kc, pods, {}, { indexes }).subscribe((s) => (first = s)));
    await until(() => first?.synced === true, 'synced');

    let late: Store<V1Pod, 'byOwner'> | undefined;
    subscriptions.push(informers.store(kc, pods, {}, { indexes }).subscribe((s) => (late = s)));
    expect(late).toBe(first); // before subscribe returned
    expect(late!.byIndex('byOwner', 'x')).toEqual([]);

    // Other indexer functions fold apart, over the same watch.
    let other: Store<V1Pod, 'byOwner'> | undefined;
    const otherIndexes = { byOwner: (p: V1Pod) => ownerIndex(p) };
    subscriptions.push(
      informers.store(kc, pods, {}, { indexes: otherIndexes }).subscribe((s) => (other = s)),
    );
    expect(other).not.toBe(first);
    expect(other?.size).toBe(3); // replayed synchronously by the shared watch
    await until(() => fake.openWatches === 1, 'the watch open');
    expect(watchesOf(fake)).toBe(1);
  });

  it('replays the known objects and the end bookmark to a late events subscriber, then live events', async () => {
    const fake = await started();
    const kc = fake.kubeConfig();
    const informers = createInformers();
    const early: WatchEvent<V1Pod>[] = [];
    subscriptions.push(informers.events(kc, pods).subscribe((e) => early.push(e)));
    await until(() => early.some((e) => e.type === 'BOOKMARK'), 'the end bookmark');

    const late: string[] = [];
    const describe = (e: WatchEvent<V1Pod>) =>
      e.type === 'ERROR'
        ? 'ERROR'
        : `${e.type} ${e.type === 'BOOKMARK' ? '' : e.object.metadata?.name}`;
    subscriptions.push(informers.events(kc, pods).subscribe((e) => late.push(describe(e))));
    expect(late).toEqual(['ADDED a', 'ADDED b', 'ADDED c', 'BOOKMARK ']);
    fake.delete(pods, 'default', 'b');
    await until(() => late.length === 5, 'the deletion');
    expect(late[4]).toBe('DELETED b');
    expect(watchesOf(fake)).toBe(1);
  });

  it('errors every subscriber when the watch fails for good, and opens a new one on resubscribe', async () => {
    const fake = await started();
    const kc = fake.kubeConfig();
    const informers = createInformers();
    fake.faults.fail(403, { match: 'list' });
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      subscriptions.push(informers.store(kc, pods).subscribe({ error: (e) => errors.push(e) }));
    }
    await until(() => errors.length === 3, 'three errors');
    expect(errors.map((e) => (e as { statusCode: number }).statusCode)).toEqual([403, 403, 403]);
    expect(informers.size).toBe(0);

    let store: Store<V1Pod> | undefined;
    subscriptions.push(informers.store(kc, pods).subscribe((s) => (store = s)));
    await until(() => store?.synced === true, 'synced after the failure');
    expect(store!.size).toBe(3);
  });
});
