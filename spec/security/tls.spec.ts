import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { KubeConfig } from '@kubernetes/client-node';
import { fromList } from '../../src/sources/fromList.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import type { Cluster, ClusterConnection } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { collect } from '../support/rawServer.js';
import { pods } from './support.js';

// TLS is verified unless the KubeConfig says skipTLSVerify: a server the configuration does not
// trust gets no request at all (so never the token), by any source.
describe('TLS verification', () => {
  let server: FakeKubeApiServer;
  let other: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    other = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.create(pods, pod('web-1', '1'));
  });
  afterAll(async () => {
    await server.stop();
    await other.stop();
  });

  const kubeConfig = (cluster: Record<string, unknown>) => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: server.url, skipTLSVerify: false, ...cluster }],
      users: [{ name: 'u', token: server.token! }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });
    return kc;
  };
  const ca = (s: FakeKubeApiServer) => Buffer.from(s.caPem!).toString('base64');

  /** Both watches, list and logs all fail with SYSTEM_ERROR 0, and the server got no request. */
  const refused = async (cluster: Cluster) => {
    const before = server.requests.length;
    const events = await collect(watchResource(cluster, pods, { timeoutSeconds: 1 }));
    expect(events).toMatchObject([
      { type: 'ERROR', error: { errorType: 'SYSTEM_ERROR', statusCode: 0 } },
    ]);
    expect(await lastValueFrom(fromWatch(cluster, pods).pipe(toArray()))).toMatchObject([
      { type: 'ERROR', error: { errorType: 'SYSTEM_ERROR', statusCode: 0 } },
    ]);
    await expect(firstValueFrom(fromList(cluster, pods))).rejects.toMatchObject({ statusCode: 0 });
    await expect(
      firstValueFrom(fromPodLogs(cluster, { namespace: 'default', name: 'web-1' })),
    ).rejects.toMatchObject({ statusCode: 0 });
    expect(server.requests.length).toBe(before);
    return events[0].type === 'ERROR' ? events[0].error.message : '';
  };

  it('no CA for a self-signed server: refused before any request', async () => {
    expect(await refused(kubeConfig({}))).toMatch(/certificate|self.signed|verify/i);
  });

  it("another cluster's CA: refused", async () => {
    await refused(kubeConfig({ caData: ca(other) }));
  });

  it('the right CA but a certificate for another name (tls-server-name): refused', async () => {
    await refused(kubeConfig({ caData: ca(server), tlsServerName: 'kubernetes.evil.example' }));
  });

  it('a ClusterConnection that brings no agent gets one that verifies', async () => {
    const connection: ClusterConnection = {
      resolve: async () => ({
        server: server.url,
        headers: { authorization: `Bearer ${server.token}` },
      }),
    };
    await refused(connection);
  });

  it('the right CA, from the KubeConfig or from a connection, is accepted', async () => {
    const events = await collect(
      watchResource(kubeConfig({ caData: ca(server) }), pods, { timeoutSeconds: 1 }),
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    const connection: ClusterConnection = {
      resolve: async () => ({
        server: server.url,
        headers: { authorization: `Bearer ${server.token}` },
        tls: { ca: server.caPem },
      }),
    };
    const list = await firstValueFrom(fromList(connection, pods));
    expect(list.items).toHaveLength(1);
  });

  it('skipTLSVerify, and only skipTLSVerify, turns verification off', async () => {
    const events = await collect(
      watchResource(kubeConfig({ skipTLSVerify: true }), pods, { timeoutSeconds: 1 }),
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(server.requests[server.requests.length - 1]).toMatchObject({ tokenValid: true });
  });
});
