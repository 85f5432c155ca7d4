import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get, watch } from './client.js';

describe('FakeKubeApiServer over HTTPS', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ tls: true, clientCA: true });
    server.create(pods, pod('a', '0'));
  });
  afterAll(() => server.stop());

  it('serves https://127.0.0.1 with a certificate signed by its CA', async () => {
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    const ca = new X509Certificate(server.caPem!);
    expect(ca.ca).toBe(true);
    const reply = await get(server, '/api/v1/pods');
    expect(reply.status).toBe(200);
    expect(reply.json.items).toHaveLength(1);
  });

  it('is refused by a client that does not trust the CA', async () => {
    const other = await FakeKubeApiServer.start({ tls: true });
    try {
      await expect(get(server, '/api/v1/pods', { ca: other.caPem })).rejects.toThrow();
    } finally {
      await other.stop();
    }
  });

  it('makes a client certificate for 127.0.0.1 signed by the same CA', () => {
    const ca = new X509Certificate(server.caPem!);
    const client = new X509Certificate(server.clientCert!.cert);
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(client.checkIssued(ca)).toBe(true);
    expect(client.subject).toContain('O=system:masters');
  });

  it('accepts a valid client certificate instead of a token', async () => {
    const { cert, key } = server.clientCert!;
    const reply = await get(server, '/api/v1/pods', { token: null, cert, key });
    expect(reply.status).toBe(200);
    expect(server.requests.at(-1)).toMatchObject({
      hasBearer: false,
      clientCertValid: true,
      status: 200,
    });
    expect(server.requests.at(-1)?.connectionId).toBeGreaterThan(0);
    expect((await get(server, '/api/v1/pods', { token: null })).status).toBe(401);
  });

  it('applies stream faults over TLS too (the cut reaches the client)', async () => {
    server.faults.cutLine();
    const w = watch(server, '/api/v1/pods');
    expect(await w.ended).toEqual({ complete: false });
    expect(w.lines).toEqual([]);
    expect(w.raw.length).toBeGreaterThan(10);
    server.faults.dropAfter(1);
    const d = watch(server, '/api/v1/pods');
    expect(await d.ended).toEqual({ complete: false });
    expect(d.lines).toHaveLength(1);
  });

  it('kubeConfig puts the CA in caData and never skips TLS verification', () => {
    const kc = server.kubeConfig({ user: 'cert', context: 'x509' });
    const cluster = kc.getCurrentCluster()!;
    expect(kc.getCurrentContext()).toBe('x509');
    expect(cluster.skipTLSVerify).toBe(false);
    expect(Buffer.from(cluster.caData!, 'base64').toString()).toBe(server.caPem);
    const user = kc.getCurrentUser()!;
    expect(user.token).toBeUndefined();
    expect(Buffer.from(user.certData!, 'base64').toString()).toBe(server.clientCert!.cert);
  });
});
