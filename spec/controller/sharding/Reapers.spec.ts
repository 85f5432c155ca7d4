// The sharder's claim on a member's Lease is fenced on the clock, as a member's runs are
// (MemberFence): after an event-loop stall longer than the renew deadline, a pass that runs
// before the Elector's deadline timer must not read the claim as held (the claim may have
// lapsed, and the member taken its Lease again and be acting: moving its objects would put a
// key on two members at once).
import { afterEach, expect, it } from '@jest/globals';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import { electionSettings } from '../../../src/controller/election/electionSettings.js';
import { Reapers } from '../../../src/controller/sharding/Reapers.js';
import { shardNames } from '../../../src/controller/sharding/shardNames.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { leases as memberLeases } from '../../../src/controller/sharding/memberLease.js';
import type { Cluster, KubernetesObject, ResourceRef } from '../../../src/types.js';
import { sleep, until } from '../../support/wait.js';

const leases = memberLeases as ResourceRef<LeaseObject & KubernetesObject>;

/**
 * m1's claims in ring `cms` (namespace ops), with timings long enough that no timer of an
 * Elector fires during a spec (real time), on the clock `now`.
 */
function reapersOn(cluster: Cluster, changed: () => void, now?: () => number): Reapers {
  const settings = electionSettings({
    namespace: 'ops',
    name: 'unused',
    identity: 'reaper:m1/test',
    leaseDurationMs: 60_000,
    renewDeadlineMs: 40_000,
    retryPeriodMs: 20_000,
    ...(now && { now }),
  });
  const names = shardNames({ ring: 'cms', namespace: 'ops', identity: 'm1' });
  return new Reapers(cluster, 'ops', names, settings, changed);
}

let fake: FakeKubeApiServer | undefined;
let reapers: Reapers | undefined;
afterEach(async () => {
  reapers?.close();
  await fake?.stop();
});

it('a claim reads as not held once its renew deadline passed on the clock, before any timer fires', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  const cluster = kubeConfigConnection(fake.kubeConfig());
  // The clock the claim is judged on; `skew` jumps it as a stalled event loop sees time jump.
  let skew = 0;
  let changes = 0;
  reapers = reapersOn(
    cluster,
    () => changes++,
    () => performance.now() + skew,
  );
  // No Lease for `ghost` (a label naming a member that never joined): the claim creates it.
  reapers.watch('ghost');
  await until(() => reapers!.holds('ghost'), 'the claim held');
  expect(changes).toBe(1);
  // A stall past the renew deadline: the deadline timer has not fired (nothing told us), but
  // the clock says the last successful write is too old to act on.
  skew = 40_001;
  expect(reapers.holds('ghost')).toBe(false);
  expect(changes).toBe(1);
}, 20_000);

it('a sharder that stops (its role lost) leaves its claims to expire: its moves in flight may still land', async () => {
  // The sharder moves a claimed member's objects with label writes; when it loses its role they
  // are aborted, but a request already sent may still be applied by the server. Released at
  // once (before: the claim's Lease deleted), the member, alive and waiting, took its Lease back
  // and listed objects still labelled for it while those writes landed: a key run on two
  // members at once (74 overlapping runs in one ring of three under load, issue 37). Left to
  // expire, the claim keeps the member out for a lease duration, as a member's own fence does.
  fake = await FakeKubeApiServer.start({ http2: false });
  const cluster = kubeConfigConnection(fake.kubeConfig());
  reapers = reapersOn(cluster, () => undefined);
  reapers.watch('ghost');
  await until(() => reapers!.holds('ghost'), 'the claim held');
  reapers.close();
  reapers = undefined;
  await sleep(500); // a release (a DELETE) would have landed by now
  expect(fake.get(leases, 'ops', 'cms.ghost')?.spec?.holderIdentity).toBe('reaper:m1/test');
}, 20_000);
