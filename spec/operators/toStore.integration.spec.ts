// Pods and deployments from a real FakeKubeApiServer, each through the resumed pipeline, merged
// into one store, while 500 random changes and faults (cut connections, cut lines, 5xx, expired
// history) hit the server: the store must end up equal to the server, and let go of every watch.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { mergeWatches } from '../../src/operators/mergeWatches.js';
import { toStore } from '../../src/operators/toStore.js';
import type { MergedStore, Store } from '../../src/operators/store/Store.js';
import { deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import type { Cluster, KubernetesObject, ResourceRef } from '../../src/types.js';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { mulberry32 } from '../support/seededRandom.js';
import { sleep, until } from '../support/wait.js';

/** `namespace/name@resourceVersion` of each object, in key order. */
const versions = (objects: readonly KubernetesObject[]) =>
  objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}@${o.metadata?.resourceVersion}`);

/** How often each lifecycle step happened, to know the faults were felt. */
const lifecycle = new Map<string, number>();

function resumed<T>(cluster: Cluster, resource: ResourceRef<T>) {
  return resilientWatch(
    cluster,
    resource,
    {},
    {
      bookmarks: { idleTimeout: 5000 },
      random: () => 0.01,
      onLifecycle: ({ type }) => lifecycle.set(type, (lifecycle.get(type) ?? 0) + 1),
    },
  );
}

let server: FakeKubeApiServer | undefined;
let subscription: Subscription | undefined;

afterEach(async () => {
  subscription?.unsubscribe();
  await server?.stop();
  server = undefined;
});

describe('mergeWatches + toStore against FakeKubeApiServer', () => {
  it('ends equal to the server after 500 random changes with faults', async () => {
    server = await FakeKubeApiServer.start({ historySize: 200, bookmarkIntervalMs: 200 });
    const fake = server;
    const next = mulberry32(42);
    for (let i = 0; i < 20; i++) fake.create(pods, pod(`p${i}`, ''));
    for (let i = 0; i < 5; i++) fake.create(deployments, deployment(`d${i}`, ''));

    let store: MergedStore<{ pods: V1Pod; deployments: V1Deployment }> | undefined;
    let failure: unknown;
    const kc = fake.kubeConfig();
    subscription = mergeWatches({ pods: resumed(kc, pods), deployments: resumed(kc, deployments) })
      .pipe(toStore({ sources: ['pods', 'deployments'] }))
      .subscribe({ next: (s) => (store = s), error: (e) => (failure = e) });
    await until(() => store?.synced === true, 'the first sync', 15_000);

    const faults = [
      () => fake.faults.dropAfter(2),
      () => fake.faults.cutLine({ afterEvents: 1 }),
      () => fake.faults.fail(503, { match: 'watch', retryAfterSeconds: 0 }),
      () => fake.faults.closeImmediately(),
      () => fake.expireHistory(),
    ];
    for (let change = 0; change < 500; change++) {
      const [resource, make, prefix, count] =
        next() < 0.7
          ? ([pods, pod, 'p', 30] as const)
          : ([deployments, deployment, 'd', 8] as const);
      const name = `${prefix}${Math.floor(next() * count)}`;
      const exists = fake.get<KubernetesObject>(resource, 'default', name) !== undefined;
      const roll = next();
      if (!exists) fake.create<KubernetesObject>(resource, make(name, ''));
      else if (roll < 0.25) fake.delete(resource, 'default', name);
      else
        fake.update<KubernetesObject>(
          resource,
          make(name, '', { metadata: { labels: { n: `${change}` } } }),
        );
      if (change % 40 === 39) faults[Math.floor(next() * faults.length)]!();
      if (change % 10 === 9) await sleep(5);
    }

    const matches = (mine: Store<KubernetesObject> | undefined, theirs: KubernetesObject[]) =>
      JSON.stringify(versions(mine?.values() ?? [])) === JSON.stringify(versions(theirs));
    await until(
      () =>
        matches(store?.store('pods'), fake.objects(pods)) &&
        matches(store?.store('deployments'), fake.objects(deployments)),
      () =>
        `the store to match the server; failure: ${String(failure)}, pods: ${versions(store?.store('pods').values() ?? []).length} of ${fake.objects(pods).length}`,
      15_000,
    );
    expect(failure).toBeUndefined();
    // The faults did hit: connections were lost and history expired under the pipeline.
    expect(lifecycle.get('disconnected')).toBeGreaterThan(5);
    expect(lifecycle.get('relist-end')).toBeGreaterThan(2); // the first lists and after 410
    expect(store!.synced).toBe(true);
    expect(versions(store!.store('pods').values())).toEqual(versions(fake.objects(pods)));

    subscription.unsubscribe();
    await until(
      () => fake.openWatches === 0,
      () => `every watch closed (${fake.openWatches} open)`,
      15_000,
    );
  }, 60_000);
});
