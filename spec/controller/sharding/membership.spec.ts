// membership's onJoined: whether a new incarnation inherits a sharder's claim (its moves may
// still land), told from the Lease it took over, against FakeKubeApiServer on loopback.
import { afterEach, expect, it } from '@jest/globals';
import { firstValueFrom, filter } from 'rxjs';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { leases as memberLeases } from '../../../src/controller/sharding/memberLease.js';
import { membership } from '../../../src/controller/sharding/membership.js';
import { shardNames } from '../../../src/controller/sharding/shardNames.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { KubernetesObject, ResourceRef } from '../../../src/types.js';

const leases = memberLeases as ResourceRef<LeaseObject & KubernetesObject>;

let fake: FakeKubeApiServer | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

/** A Lease of member `member` of ring `cms`, last renewed now by `holder` (absent: none). */
function lease(member: string, holder: string | undefined): void {
  if (holder === undefined) return;
  const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  fake!.create(leases, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: `cms.${member}`,
      namespace: 'ops',
      labels: { 'shard.kube-rx.io/ring': 'cms', 'shard.kube-rx.io/member': member },
    },
    spec: { holderIdentity: holder, leaseDurationSeconds: 1, renewTime: now },
  } as LeaseObject & KubernetesObject);
}

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
      lease(member, holder);
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
