import { describe, expect, it, jest } from '@jest/globals';
import type { ClusterConnection } from '../../src/types.js';
import { until } from '../support/wait.js';

// The browser entry's leader election: the same Lease writes over the fetch transport (swapped in
// as the browser bundle swaps it), against a FakeKubeApiServer.
jest.unstable_mockModule(
  '../../src/transport/platform.js',
  () => import('../../src/transport/platform.browser.js'),
);
const { leaderElection } = await import('../../src/controller/leaderElection.js');
const { FakeKubeApiServer } =
  await import('../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js');

describe('leaderElection over fetch', () => {
  it('one of two candidates leads; unsubscribing it hands the lease to the other', async () => {
    const server = await FakeKubeApiServer.start({ token: 't' });
    const cluster: ClusterConnection = {
      resolve: async () => ({ server: server.url, headers: { Authorization: 'Bearer t' } }),
    };
    const config = {
      namespace: 'default',
      name: 'lock',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1400,
      retryPeriodMs: 200,
    };
    const last: Record<string, boolean> = {};
    const subs = ['a', 'b'].map((identity) =>
      leaderElection(cluster, { ...config, identity }).subscribe((v) => (last[identity] = v)),
    );
    try {
      await until(() => last.a || last.b, 'a leader', 5000);
      const [leader, other] = last.a ? [0, 'b'] : [1, 'a'];
      expect(last[other]).toBe(false);
      subs[leader].unsubscribe();
      // Released, not expired: the other takes it well before the 2 s lease would run out.
      await until(() => last[other], `${other} leading`, 1800);
      expect(server.requests.every((r) => r.status === undefined || r.status < 500)).toBe(true);
    } finally {
      for (const s of subs) s.unsubscribe();
      await server.stop();
    }
  });
});
