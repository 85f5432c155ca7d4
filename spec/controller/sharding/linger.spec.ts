// A member whose membership was lost (a partition, healed) rejoins as a new incarnation before
// it acts again. Its shared informers may linger (`createInformers({ linger })`): the watch of
// its label, open from before the partition, still replays the objects labelled for it then,
// though the sharder has since moved them (the member's Lease expired). The new incarnation
// must act only on what is its own now, never on a key another member holds. (Before each
// incarnation had watches of its own, m2 ran all 15 of its old keys 264 ms after it rejoined,
// each then labelled for m1 or m3 on the server, overlapping their runs.)
import { afterEach, expect, it } from '@jest/globals';
import { type SchedulerLike, type Subscription, asyncScheduler } from 'rxjs';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { leases as sharderLeases } from '../../../src/controller/sharding/memberLease.js';
import { HashRing } from '../../../src/controller/sharding/hashRing.js';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import { createInformers } from '../../../src/operators/createInformers.js';
import { configmaps } from '../../../src/objects/resources.js';
import { fromWatch } from '../../../src/sources/fromWatch.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { ClusterConnection, KubernetesObject, ResourceRef } from '../../../src/types.js';
import { sleep, until } from '../../support/wait.js';
import { DRAIN, LABEL, Ring, seed } from './ringHarness.js';

const leases = sharderLeases as ResourceRef<LeaseObject & KubernetesObject>;

let ring: Ring | undefined;
let fake: FakeKubeApiServer | undefined;
const timers = new Set<Subscription>();
afterEach(async () => {
  ring?.close();
  ring = undefined;
  await sleep(100);
  await fake?.stop();
  fake = undefined;
  // The lingering watch's timer (and its backoffs) end with the spec.
  for (const timer of timers) timer.unsubscribe();
  timers.clear();
});

/** asyncScheduler, each action kept so that afterEach can cancel it. */
const scheduler: SchedulerLike = {
  now: () => asyncScheduler.now(),
  schedule: (...args: Parameters<SchedulerLike['schedule']>) => {
    const action = asyncScheduler.schedule(...args);
    timers.add(action);
    return action;
  },
} as SchedulerLike;

/** What the ring looks like (for a timeout's message). */
function census(r: Ring): string {
  const counts: Record<string, number> = {};
  for (const [, label] of r.labels()) counts[label ?? '-'] = (counts[label ?? '-'] ?? 0) + 1;
  counts.draining = fake!
    .objects(configmaps, 'app')
    .filter((cm) => cm.metadata?.labels?.[DRAIN] !== undefined).length;
  const holders = fake!
    .objects(leases, 'ops')
    .map((l) => `${l.metadata!.name}=${l.spec?.holderIdentity ?? ''}`);
  return `${JSON.stringify(counts)} leases ${holders.join(' ')} runs ${r.runs.length}`;
}

function assignedTo(r: Ring, members: string[]): boolean {
  const hash = new HashRing(members);
  for (const [name, label] of r.labels()) if (label !== hash.owner(`app/${name}`)) return false;
  return true;
}

it('a member rejoining after a partition acts on none of the keys moved away, though its watch lingered', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  seed(fake, 30);
  // Leases long enough that a loaded machine does not flap a member (requests slow to hundreds
  // of ms): the incarnation this spec is about is the one after the partition.
  // Runs of 500 ms (under the 600 ms between the renew deadline and the lease's expiry): a key
  // moved back to m2 after it rejoins is released only when its run on m1 or m3 ended, which
  // leaves the new incarnation time to act on what its store says, if it would.
  const r = (ring = new Ring(fake, 500, 50, { lease: 2000, renew: 1400, retry: 200 }));
  r.join('m1');
  r.join('m3');
  // m2's watches linger a minute, so its label's watch outlives the partition; and that watch
  // stays cut off a while after the rest of m2 is back (its backoff may be long), so the new
  // incarnation starts on what it replays: the store from before the partition.
  const base = kubeConfigConnection(fake.kubeConfig());
  let watchCut = false;
  const watchCluster: ClusterConnection = {
    resolve: async (context) =>
      watchCut ? { server: 'http://127.0.0.1:9' } : base.resolve(context),
  };
  const informers = createInformers({
    linger: 60_000,
    scheduler,
    resilience: { onRefused: 'retry' },
    source: (cluster, resource, options) =>
      fromWatch(
        resource.plural === 'configmaps' && options.labelSelector?.includes(`${LABEL}=m2`)
          ? watchCluster
          : cluster,
        resource,
        options,
      ),
  });
  r.join('m2', 'm2', undefined, informers);
  await until(
    () => assignedTo(r, ['m1', 'm2', 'm3']),
    () => `assigned to three: ${census(r)}`,
    15_000,
  );
  await until(
    () => r.runs.filter((run) => run.member === 'm2').length > 10,
    () => `m2 running: ${census(r)}`,
  );

  r.members.get('m2')!.partition(true);
  watchCut = true;
  // A watch already streaming would go on through the partition (it only refuses new
  // connections): every connection is cut, and m2's cannot come back.
  fake.disconnectAll();
  // Its objects move once its Lease expired (the sharder's claim), and the claim is let go.
  await until(
    () => assignedTo(r, ['m1', 'm3']),
    () => `m2 objects moved: ${census(r)}`,
    15_000,
  );
  await until(() => fake!.get(leases, 'ops', 'cms.m2') === undefined, 'the claim let go', 10_000);
  const healed = performance.now();
  r.members.get('m2')!.partition(false);
  // m2 holds its Lease again (a new incarnation) while its old watch is still cut off.
  await until(
    () => fake!.get(leases, 'ops', 'cms.m2')?.spec?.holderIdentity?.startsWith('m2/') === true,
    () => `m2 rejoined: ${census(r)}`,
    10_000,
  );
  await sleep(1000);
  watchCut = false;

  await until(
    () => assignedTo(r, ['m1', 'm2', 'm3']),
    () => `m2 back in the ring: ${census(r)}`,
    15_000,
  );
  await until(
    () => r.runs.some((run) => run.member === 'm2' && run.start > healed),
    'the new incarnation runs',
    15_000,
  );
  await sleep(500);
  // Every run m2 started after it rejoined was of a key labelled for it on the server then.
  const wrong = r.runs.filter(
    (run) =>
      run.member === 'm2' &&
      run.start > healed &&
      run.serverLabel !== undefined &&
      run.serverLabel !== 'm2',
  );
  expect(wrong.map((run) => `${run.key} (the server's: ${run.serverLabel})`)).toEqual([]);
  expect(r.overlaps()).toEqual([]);
}, 60_000);
