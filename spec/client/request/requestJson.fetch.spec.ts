import { describe, expect, it, jest } from '@jest/globals';
import type { ClusterConnection } from '../../../src/types.js';

// The browser entry's writes: requestJson over the fetch transport (swapped in as the browser
// bundle swaps it), against a FakeKubeApiServer.
jest.unstable_mockModule(
  '../../../src/transport/platform.js',
  () => import('../../../src/transport/platform.browser.js'),
);
jest.unstable_mockModule(
  '../../../src/client/connection/platform.js',
  () => import('../../../src/client/connection/platform.browser.js'),
);
const { requestJson } = await import('../../../src/client/request/requestJson.js');
const { FakeKubeApiServer } =
  await import('../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js');

describe('requestJson over fetch', () => {
  it('sends POST and PUT with their JSON bodies; a stale write is a 409', async () => {
    const server = await FakeKubeApiServer.start({ token: 't' });
    try {
      const cluster: ClusterConnection = {
        resolve: async () => ({ server: server.url, headers: { Authorization: 'Bearer t' } }),
      };
      const signal = new AbortController().signal;
      const path = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
      const created = await requestJson<{ metadata: { resourceVersion: string } }>(cluster, {
        method: 'POST',
        path,
        body: { metadata: { name: 'lock' }, spec: { holderIdentity: 'page' } },
        signal,
      });
      if (!created.ok) throw created.error;
      const body = {
        metadata: { name: 'lock', resourceVersion: created.value.metadata.resourceVersion },
        spec: { holderIdentity: 'other' },
      };
      const put = await requestJson(cluster, { method: 'PUT', path: `${path}/lock`, body, signal });
      expect(put.ok).toBe(true);
      const stale = await requestJson(cluster, {
        method: 'PUT',
        path: `${path}/lock`,
        body,
        signal,
      });
      expect(stale.ok || stale.error.statusCode).toBe(409);
      expect(server.requests.map((r) => r.method)).toEqual(['POST', 'PUT', 'PUT']);
    } finally {
      await server.stop();
    }
  });
});
