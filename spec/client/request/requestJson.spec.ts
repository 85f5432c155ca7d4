import { afterEach, describe, expect, it } from '@jest/globals';
import { requestJson } from '../../../src/client/request/requestJson.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { Cluster } from '../../../src/types.js';
import { RawServer } from '../../support/rawServer.js';

// Writes go through the one request core: the same transport as watches and lists, over
// HTTP/1.1 and HTTP/2 (TLS, ALPN). The fetch transport's writes are in fetchWrites.spec.ts.
const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
interface Lease {
  metadata: { name: string; resourceVersion?: string };
  spec?: { holderIdentity?: string };
}

let server: FakeKubeApiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const modes: [string, { tls: boolean; http2: boolean }][] = [
  ['HTTP/1.1', { tls: false, http2: false }],
  ['HTTP/2 over TLS', { tls: true, http2: true }],
];

describe.each(modes)('requestJson over %s', (_name, { tls, http2 }) => {
  it('creates, reads and replaces an object; a stale resourceVersion is a 409, nothing overwritten', async () => {
    server = await FakeKubeApiServer.start({ tls, http2 });
    const cluster: Cluster = server.kubeConfig();
    const signal = new AbortController().signal;
    const created = await requestJson<Lease>(cluster, {
      method: 'POST',
      path: leases,
      body: { metadata: { name: 'lock' }, spec: { holderIdentity: 'a' } },
      signal,
    });
    expect(created).toMatchObject({ ok: true, status: 201 });
    if (!created.ok) throw created.error;
    const rv = created.value.metadata.resourceVersion;
    expect(rv).toBeDefined();

    const read = await requestJson<Lease>(cluster, {
      method: 'GET',
      path: `${leases}/lock`,
      signal,
    });
    expect(read.ok && read.value.spec?.holderIdentity).toBe('a');

    const replaced = await requestJson<Lease>(cluster, {
      method: 'PUT',
      path: `${leases}/lock`,
      body: { metadata: { name: 'lock', resourceVersion: rv }, spec: { holderIdentity: 'b' } },
      signal,
    });
    expect(replaced.ok && replaced.value.spec?.holderIdentity).toBe('b');

    const stale = await requestJson<Lease>(cluster, {
      method: 'PUT',
      path: `${leases}/lock`,
      body: { metadata: { name: 'lock', resourceVersion: rv }, spec: { holderIdentity: 'c' } },
      signal,
    });
    expect(stale.ok).toBe(false);
    if (!stale.ok) expect(stale.error.statusCode).toBe(409);
    const after = await requestJson<Lease>(cluster, {
      method: 'GET',
      path: `${leases}/lock`,
      signal,
    });
    expect(after.ok && after.value.spec?.holderIdentity).toBe('b');

    const patched = await requestJson<Lease>(cluster, {
      method: 'PATCH',
      path: `${leases}/lock`,
      contentType: 'application/merge-patch+json',
      body: { spec: { holderIdentity: 'd' } },
      signal,
    });
    expect(patched.ok && patched.value.spec?.holderIdentity).toBe('d');

    const deleted = await requestJson(cluster, {
      method: 'DELETE',
      path: `${leases}/lock`,
      signal,
    });
    expect(deleted.ok).toBe(true);
    const gone = await requestJson(cluster, { method: 'GET', path: `${leases}/lock`, signal });
    expect(gone.ok || gone.error.errorType).toBe('NOT_FOUND');
    if (tls && http2) expect(server.http2.sessions).toBe(1);
  });
});

describe('requestJson', () => {
  it('is never a rejection: a refused connection is SYSTEM_ERROR, an abort ends it', async () => {
    server = await FakeKubeApiServer.start();
    const url = server.url;
    await server.stop();
    server = undefined;
    const cluster: Cluster = { resolve: async () => ({ server: url }) };
    const failed = await requestJson(cluster, {
      method: 'POST',
      path: leases,
      body: {},
      signal: new AbortController().signal,
    });
    expect(failed.ok || [failed.error.errorType, failed.error.statusCode]).toEqual([
      'SYSTEM_ERROR',
      0,
    ]);
    const controller = new AbortController();
    controller.abort();
    const aborted = await requestJson(cluster, {
      method: 'GET',
      path: leases,
      signal: controller.signal,
    });
    expect(aborted.ok).toBe(false);
  });

  it('answers PARSE_ERROR for a 2xx answer that is not JSON', async () => {
    const raw = await RawServer.start((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('not');
    });
    try {
      const cluster: Cluster = { resolve: async () => ({ server: raw.url }) };
      const got = await requestJson(cluster, {
        method: 'GET',
        path: leases,
        signal: new AbortController().signal,
      });
      expect(got.ok || got.error.errorType).toBe('PARSE_ERROR');
    } finally {
      await raw.stop();
    }
  });
});
