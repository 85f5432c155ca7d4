// A member's self-fencing when the timer that stops it is late: an event-loop stall (a GC pause,
// a starved CPU) longer than its lease. Its renew deadline passes during the stall, the sharder
// judges its Lease expired as soon as it can look again, and the timers that come due first
// when the loop runs again may be the member's own requeues: none may start a run.
import { afterEach, expect, it } from '@jest/globals';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { leases as sharderLeases } from '../../../src/controller/sharding/memberLease.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { KubernetesObject, ResourceRef } from '../../../src/types.js';
import { sleep, until } from '../../support/wait.js';
import { RENEW, RING, Ring, seed } from './ringHarness.js';

const leases = sharderLeases as ResourceRef<LeaseObject & KubernetesObject>;

let ring: Ring | undefined;
let fake: FakeKubeApiServer | undefined;
afterEach(async () => {
  ring?.close();
  ring = undefined;
  await sleep(100);
  await fake?.stop();
  fake = undefined;
});

/** Blocks the event loop (every timer and socket of the process waits). */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

it('a member starts no run past its renew deadline, even when the timer that stops it fires late', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  seed(fake, 30);
  // Short runs, long requeues: at any moment most of m1's keys wait on a requeue timer that
  // comes due before its renew deadline does.
  const r = (ring = new Ring(fake, 20, 150));
  r.join('m2');
  // m2 is the sharder (it must stay responsive when m1 is cut off).
  await until(
    () => fake!.get(leases, 'ops', RING)?.spec?.holderIdentity?.startsWith('m2/') === true,
    'm2 the sharder',
  );
  r.join('m1');
  await until(
    () => [...r.labels().values()].filter((m) => m === 'm1').length > 5,
    'm1 has its share',
    15_000,
  );
  await until(() => r.runs.filter((x) => x.member === 'm1').length > 30, 'm1 running');
  // m1 loses the server, and the whole process stalls past a lease duration (1 s, whole
  // seconds): m1's renew deadline passes with its timer not yet fired.
  const cut = performance.now();
  r.members.get('m1')!.partition(true);
  stall(1300);
  await sleep(800);
  // Its requeues came due before its deadline's timer did; the runs they start would begin
  // after the deadline (in another process the sharder, not stalled, may have moved the keys).
  const late = r.runs.filter((x) => x.member === 'm1' && x.start > cut + RENEW);
  expect(late).toEqual([]);
  expect(r.overlaps()).toEqual([]);
}, 30_000);
