// The real kubectl (1.32) reads the Lease that leaderElection writes, over TLS with a bearer
// token: the holder is who leads, the durations and times are what kube-apiserver would accept.
import { afterEach, describe, expect, it } from '@jest/globals';
import { load } from 'js-yaml';
import type { Subscription } from 'rxjs';
import { leaderElection } from '../../src/controller/leaderElection.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { Kubectl } from '../testing/fakeKubeApiServer/kubectl.js';
import { until } from '../support/wait.js';

interface LeaseYaml {
  kind: string;
  spec: {
    holderIdentity: string;
    leaseDurationSeconds: number;
    acquireTime: string;
    renewTime: string;
    leaseTransitions: number;
  };
}

let server: FakeKubeApiServer | undefined;
let kubectl: Kubectl | undefined;
let subscription: Subscription | undefined;
afterEach(async () => {
  subscription?.unsubscribe();
  await kubectl?.cleanup();
  await server?.stop();
});

describe('leaderElection seen by kubectl', () => {
  it('kubectl get lease -o yaml shows the leader as holder, then no holder once released', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    kubectl = await Kubectl.for(server);
    let leading = false;
    subscription = leaderElection(server.kubeConfig(), {
      namespace: 'kube-system',
      name: 'my-operator',
      identity: 'replica-1',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 500,
    }).subscribe((v) => (leading = v));
    await until(() => leading, 'leading', 10_000);

    const lease = load(
      await kubectl.ok('get', 'lease', '-n', 'kube-system', 'my-operator', '-o', 'yaml'),
    ) as LeaseYaml;
    expect(lease.kind).toBe('Lease');
    expect(lease.spec).toMatchObject({
      holderIdentity: 'replica-1',
      leaseDurationSeconds: 3,
      leaseTransitions: 0,
    });
    // MicroTime, as kube-apiserver writes it.
    expect(lease.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(lease.spec.acquireTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const table = await kubectl.ok('get', 'leases', '-n', 'kube-system');
    expect(table).toMatch(/my-operator\s+replica-1/);

    subscription.unsubscribe();
    await until(
      () =>
        (
          server!.get(
            { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' },
            'kube-system',
            'my-operator',
          ) as { spec?: { holderIdentity?: string } }
        ).spec?.holderIdentity === '',
      'holder cleared',
    );
    const released = load(
      await kubectl.ok('get', 'lease', '-n', 'kube-system', 'my-operator', '-o', 'yaml'),
    ) as LeaseYaml;
    expect(released.spec.holderIdentity ?? '').toBe('');
  });
});
