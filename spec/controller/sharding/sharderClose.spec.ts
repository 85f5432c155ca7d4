// A sharder that stops (its role lost, or unsubscribed) with label writes in flight. A request
// already sent may be applied by the server whenever it gets to it, aborted or not (under load
// an aborted move was applied 1.3 s after, past a 1 s lease): the member whose objects they move
// must not hold its Lease, and list objects still labelled for it, before they land. So the
// writes are let end and the claims renewed until then, and only then left to expire.
import http from 'node:http';
import { afterEach, expect, it } from '@jest/globals';
import { asyncScheduler } from 'rxjs';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { electionSettings } from '../../../src/controller/election/electionSettings.js';
import { leases as memberLeases } from '../../../src/controller/sharding/memberLease.js';
import { SharderRun } from '../../../src/controller/sharding/SharderRun.js';
import {
  MEMBER_LABEL,
  RING_LABEL,
  shardNames,
} from '../../../src/controller/sharding/shardNames.js';
import { configmaps } from '../../../src/objects/resources.js';
import { createInformers } from '../../../src/operators/createInformers.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { ClusterConnection, KubernetesObject, ResourceRef } from '../../../src/types.js';
import { bodyOf, forward } from '../../support/forward.js';
import { RawServer } from '../../support/rawServer.js';
import { sleep, until } from '../../support/wait.js';
import { LABEL } from './ringHarness.js';

const leases = memberLeases as ResourceRef<LeaseObject & KubernetesObject>;

/** A proxy that forwards everything, holding each PATCH of a ConfigMap `delayMs` first. */
async function slowPatches(target: string, delayMs: number) {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const state = { url: '', arrived: 0, landed: [] as Array<string | undefined> };
  const raw = await RawServer.start(
    (req, res) =>
      void bodyOf(req).then((body) => {
        const slow = req.method === 'PATCH' && req.url?.includes('/configmaps/') === true;
        const send = () => forward(upstream, req, res, { body, agent });
        if (!slow) return send();
        state.arrived++;
        // Forwarded even when the client gave up: the server applies what it was sent.
        setTimeout(send, delayMs);
      }),
  );
  state.url = raw.url;
  const close = async () => {
    agent.destroy();
    await raw.stop();
  };
  return { state, close };
}

let fake: FakeKubeApiServer | undefined;
let run: SharderRun | undefined;
let closeProxy: (() => Promise<void>) | undefined;
let renewing: NodeJS.Timeout | undefined;
afterEach(async () => {
  clearInterval(renewing);
  run?.close();
  await closeProxy?.();
  await fake?.stop();
});

it('a sharder that stops holds its claims until its label writes in flight were answered', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  const names = shardNames({ ring: 'cms', namespace: 'ops', identity: 'm1' });
  // m1 live (its Lease renewed by the spec), cm-0 labelled for `ghost`, which never joined: the
  // sharder claims ghost's Lease (creating it) and moves cm-0 to m1.
  const lease = (renewTime: string) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: names.memberLease('m1'),
      namespace: 'ops',
      labels: { [RING_LABEL]: 'cms', [MEMBER_LABEL]: 'm1' },
    },
    spec: { holderIdentity: 'm1/abc', leaseDurationSeconds: 1, renewTime },
  });
  fake.create(leases, lease(new Date().toISOString()));
  renewing = setInterval(() => {
    const current = fake!.get(leases, 'ops', names.memberLease('m1'))!;
    fake!.update(leases, {
      ...current,
      spec: { ...current.spec, renewTime: new Date().toISOString() },
    });
  }, 200);
  fake.create(configmaps, {
    metadata: { name: 'cm-0', namespace: 'app', labels: { [LABEL]: 'ghost' } },
  });
  // The move of cm-0 takes 2.5 s to reach the server (a server slow to get to it).
  const proxy = await slowPatches(fake.url, 2500);
  closeProxy = proxy.close;
  const base = kubeConfigConnection(fake.kubeConfig());
  const cluster: ClusterConnection = {
    resolve: async (context) => ({ ...(await base.resolve(context)), server: proxy.state.url }),
  };
  run = new SharderRun({
    cluster,
    informers: createInformers({ resilience: { onRefused: 'retry' } }),
    names,
    namespace: 'ops',
    resource: configmaps,
    options: { namespace: 'app' },
    owned: [],
    // A 1 s lease: a claim left to expire at once would have lapsed before the move landed.
    settings: electionSettings({
      namespace: 'ops',
      name: 'unused',
      identity: 'reaper:m1/test',
      leaseDurationMs: 1000,
      renewDeadlineMs: 700,
      retryPeriodMs: 100,
    }),
    writeConcurrency: 8,
    scheduler: asyncScheduler,
  });
  await until(() => proxy.state.arrived === 1, 'the move of cm-0 sent', 10_000);
  // The sharder loses its role with the move in flight.
  run.close();
  run = undefined;
  await until(
    () => fake!.get(configmaps, 'app', 'cm-0')?.metadata?.labels?.[LABEL] === 'm1',
    'the move landed',
    10_000,
  );
  // When it landed, ghost's Lease was still held by the claim and renewed within a lease.
  const claim = fake.get(leases, 'ops', names.memberLease('ghost'));
  expect(claim?.spec?.holderIdentity).toBe('reaper:m1/test');
  const age = Date.now() - Date.parse(claim!.spec!.renewTime!);
  expect(age).toBeLessThan(1000);
  // Then the claim is no longer renewed: left to expire.
  await sleep(1500);
  const later = fake.get(leases, 'ops', names.memberLease('ghost'));
  expect(Date.now() - Date.parse(later!.spec!.renewTime!)).toBeGreaterThan(1000);
}, 30_000);
