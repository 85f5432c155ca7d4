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
import { until } from '../../support/wait.js';

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
  const settings = electionSettings({
    namespace: 'ops',
    name: 'unused',
    identity: 'reaper:m1/test',
    // Long enough that no timer of the Elector fires during the spec (real time).
    leaseDurationMs: 60_000,
    renewDeadlineMs: 40_000,
    retryPeriodMs: 20_000,
    now: () => performance.now() + skew,
  });
  let changes = 0;
  reapers = new Reapers(
    cluster,
    'ops',
    shardNames({ ring: 'cms', namespace: 'ops', identity: 'm1' }),
    settings,
    () => changes++,
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
