// The ring's Lease APIs against FakeKubeApiServer on loopback: the sharder's Lease carries the
// ring's label (so the members' label-selected watch of the ring's Leases sees it), whether it
// creates the Lease or finds one an earlier version created without it.
import { afterEach, expect, it } from '@jest/globals';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { leases, sharderLeaseApi } from '../../../src/controller/sharding/memberLease.js';
import { shardNames } from '../../../src/controller/sharding/shardNames.js';
import { microTime } from '../../../src/objects/microTime.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { KubernetesObject, ResourceRef } from '../../../src/types.js';

const leaseRef = leases as ResourceRef<LeaseObject & KubernetesObject>;
const names = shardNames({ ring: 'cms', namespace: 'ops', identity: 'm1' });
const signal = new AbortController().signal;

let fake: FakeKubeApiServer | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

it('the sharder Lease carries the ring label when created, and gains it at its next write when it had none', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  const api = sharderLeaseApi(kubeConfigConnection(fake.kubeConfig()), 'ops', names);
  const created = await api.create(
    { metadata: { name: '' }, spec: { holderIdentity: 'm1/a' } },
    signal,
  );
  expect(created.ok && created.value.metadata.labels).toEqual({ 'shard.kube-rx.io/ring': 'cms' });
  expect(fake.objects(leaseRef, 'ops').map((l) => l.metadata?.name)).toEqual(['cms']);

  // A Lease left by an earlier version: no labels, or labels of someone else's.
  const old = fake.get(leaseRef, 'ops', 'cms')!;
  fake.update(leaseRef, { ...old, metadata: { ...old.metadata, labels: { team: 'a' } } });
  const read = await api.get(signal);
  expect(read.ok && read.value?.metadata.labels).toEqual({ team: 'a' });
  const renewed = await api.update(
    {
      ...(read.ok ? read.value! : old),
      spec: { holderIdentity: 'm1/a', renewTime: microTime(Date.now()) },
    },
    signal,
  );
  expect(renewed.ok).toBe(true);
  expect(fake.get(leaseRef, 'ops', 'cms')?.metadata?.labels).toEqual({
    team: 'a',
    'shard.kube-rx.io/ring': 'cms',
  });
});
