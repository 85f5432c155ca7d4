// membership's onJoined: whether a new incarnation inherits a sharder's claim (its moves may
// still land), told from the Lease it took over, against FakeKubeApiServer on loopback.
import { afterEach, expect, it } from '@jest/globals';
import { firstValueFrom, filter } from 'rxjs';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import { membership } from '../../../src/controller/sharding/membership.js';
import { shardNames } from '../../../src/controller/sharding/shardNames.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { staleLease } from './ringHarness.js';

let fake: FakeKubeApiServer | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

it('a new incarnation inherits when it takes its Lease from a claim or creates it, not from itself or a release', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  const cluster = kubeConfigConnection(fake.kubeConfig());
  const cases: Array<[string, string | undefined, boolean]> = [
    ['fresh', undefined, true], // created afresh: a claim let go deletes the Lease
    ['claimed', 'reaper:m9/dead', true], // a sharder's claim, expired
    ['restarted', 'restarted/old', false], // an earlier incarnation of this member, expired
    ['released', '', false], // released by this member (a graceful stop)
  ];
  const told = await Promise.all(
    cases.map(async ([member, holder]) => {
      if (holder !== undefined) staleLease(fake!, member, holder);
      let inherits: boolean | undefined;
      const joined = membership(cluster, {
        namespace: 'ops',
        identity: member,
        names: shardNames({ ring: 'cms', namespace: 'ops', identity: member }),
        leaseDurationMs: 600,
        renewDeadlineMs: 400,
        retryPeriodMs: 100,
        settled: () => Promise.resolve(),
        onJoined: (value) => (inherits = value),
      });
      await firstValueFrom(joined.pipe(filter(Boolean)));
      return inherits;
    }),
  );
  expect(told).toEqual(cases.map(([, , inherits]) => inherits));
}, 20_000);
