import { afterEach, describe, expect, it } from '@jest/globals';
import { lastValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { pods } from '../../src/objects/resources.js';
import { connectionsFor } from '../../src/transport/targetConnections.js';
import { transportSettings } from '../../src/transport/transportSettings.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { until } from '../support/wait.js';

// kube-rx keeps the connections of at most 32 targets (origin, TLS material, proxy); making a
// 33rd closes the least recently used one's, HTTP/1.1 pool and HTTP/2 sessions alike.
describe('connectionsFor', () => {
  let server: FakeKubeApiServer | undefined;
  const idle = transportSettings.keepAliveIdleMs;
  afterEach(async () => {
    transportSettings.keepAliveIdleMs = idle;
    await server?.stop();
  });

  it('gives the same connections for the same target, others for another', () => {
    const target = { origin: 'https://127.0.0.1:1', tls: undefined, proxy: undefined };
    const first = connectionsFor(target);
    expect(connectionsFor({ ...target })).toBe(first);
    expect(connectionsFor({ ...target, tls: { servername: 'other' } })).not.toBe(first);
    expect(connectionsFor({ ...target, proxy: 'http://127.0.0.1:2' })).not.toBe(first);
  });

  it('tells TLS material apart by its bytes: repeated, alternated, or changed in place', () => {
    const target = { origin: 'https://127.0.0.1:3', proxy: undefined };
    const a = connectionsFor({ ...target, tls: { ca: 'CA-A' } });
    expect(connectionsFor({ ...target, tls: { ca: 'CA-A' } })).toBe(a);
    const b = connectionsFor({ ...target, tls: { ca: 'CA-B' } });
    expect(b).not.toBe(a);
    // Back and forth: each material finds its own connections again.
    expect(connectionsFor({ ...target, tls: { ca: 'CA-A' } })).toBe(a);
    expect(connectionsFor({ ...target, tls: { ca: 'CA-B' } })).toBe(b);
    expect(connectionsFor({ ...target, tls: { ca: 'CA-A', rejectUnauthorized: false } })).not.toBe(
      a,
    );
    // A key resolved afresh (an equal Buffer) is the same material; one changed in place is not.
    const key = Buffer.from('KEY-1');
    const k = connectionsFor({ ...target, tls: { cert: 'CERT', key } });
    expect(connectionsFor({ ...target, tls: { cert: 'CERT', key: Buffer.from('KEY-1') } })).toBe(k);
    key.write('KEY-2');
    expect(connectionsFor({ ...target, tls: { cert: 'CERT', key } })).not.toBe(k);
  });

  it('closes the HTTP/2 session of the least recently used target when a 33rd is made', async () => {
    // Idle sessions would close on their own after keepAliveIdleMs: not within this spec.
    transportSettings.keepAliveIdleMs = 120_000;
    server = await FakeKubeApiServer.start({ tls: true });
    await lastValueFrom(fromList(server.kubeConfig(), pods));
    expect(server.http2.openSessions).toBe(1);
    // 31 more targets: the server's is still kept, its session open.
    for (let port = 2; port <= 32; port++)
      connectionsFor({ origin: `https://127.0.0.1:${port}`, tls: undefined, proxy: undefined });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.http2.openSessions).toBe(1);
    // The 33rd evicts the least recently used: the first one, the server's.
    connectionsFor({ origin: 'https://127.0.0.1:33', tls: undefined, proxy: undefined });
    await until(
      () => server!.http2.openSessions === 0,
      "the evicted target's session to close",
      10_000,
    );
  });
});
