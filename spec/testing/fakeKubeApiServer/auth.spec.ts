import { afterEach, describe, expect, it } from '@jest/globals';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get, watch } from './client.js';

const UNAUTHORIZED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

describe('FakeKubeApiServer authentication, Status bodies and recorded requests', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('answers 401 with the Unauthorized Status for a missing or wrong bearer token', async () => {
    server = await FakeKubeApiServer.start();
    for (const token of [null, 'wrong']) {
      const reply = await get(server, '/api/v1/pods', { token });
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual(UNAUTHORIZED);
      expect((await get(server, '/api/v1/pods?watch=true', { token })).status).toBe(401);
    }
    expect((await get(server, '/api/v1/pods')).status).toBe(200);
    expect(server.token).toBe('test-token');
  });

  it('rotateToken: the old token is refused from then on, open watches go on', async () => {
    server = await FakeKubeApiServer.start({ token: 'one' });
    const w = watch(server, '/api/v1/pods', { token: 'one' });
    await w.responded;
    server.rotateToken('two');
    expect((await get(server, '/api/v1/pods', { token: 'one' })).status).toBe(401);
    expect((await get(server, '/api/v1/pods', { token: 'two' })).status).toBe(200);
    server.create(pods, pod('a', '0'));
    expect(await w.waitForLines(1)).toHaveLength(1);
    w.close();
    expect(server.kubeConfig().getCurrentUser()?.token).toBe('two');
  });

  it('token: null checks nothing', async () => {
    server = await FakeKubeApiServer.start({ token: null });
    expect((await get(server, '/api/v1/pods', { token: null })).status).toBe(200);
    expect(server.kubeConfig().getCurrentUser()?.token).toBeUndefined();
  });

  it('answers 404 for unknown paths, 405 for other methods, always with a Status', async () => {
    server = await FakeKubeApiServer.start();
    for (const path of [
      '/',
      '/api/v2',
      '/apis/nope.example.com',
      '/api/V1/pods',
      '/api/v1/pods/a/b',
      '/healthzz',
      '/api/v1/pods/',
    ]) {
      const reply = await get(server, path);
      expect([path, reply.status, reply.json?.kind, reply.json?.reason, reply.json?.code]).toEqual([
        path,
        404,
        'Status',
        'NotFound',
        404,
      ]);
    }
    const post = await get(server, '/api/v1/namespaces/default/pods/a', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.json).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  });

  it('records every request: path, query, watch, redacted headers, token checks, status, connection', async () => {
    server = await FakeKubeApiServer.start();
    await get(server, '/api/v1/namespaces/default/pods?labelSelector=a%3Db&limit=5');
    await get(server, '/api/v1/pods?watch=true&timeoutSeconds=1', { token: 'bad' });
    expect(server.requests).toHaveLength(2);
    const [list, bad] = server.requests;
    expect(list).toMatchObject({
      method: 'GET',
      path: '/api/v1/namespaces/default/pods',
      query: { labelSelector: 'a=b', limit: '5' },
      watch: false,
      hasBearer: true,
      tokenValid: true,
      clientCertValid: false,
      status: 200,
    });
    expect(list.headers.authorization).toBe('<redacted>');
    expect(JSON.stringify(server.requests)).not.toContain('test-token');
    expect(bad).toMatchObject({ watch: true, hasBearer: true, tokenValid: false, status: 401 });
    expect(list.connectionId).toBeGreaterThan(0);
    expect(bad.connectionId).toBeGreaterThan(list.connectionId);
    expect(typeof list.at).toBe('number');
  });

  it('records and applies the first value of a repeated query parameter, as kube-apiserver does', async () => {
    server = await FakeKubeApiServer.start();
    for (const name of ['a', 'b', 'c']) server.create(pods, pod(name, '0'));
    const reply = await get(server, '/api/v1/pods?limit=1&limit=3');
    expect(server.requests[0].query.limit).toBe('1');
    expect(reply.json.items).toHaveLength(1);
  });

  it('fail() answers before authentication is checked', async () => {
    server = await FakeKubeApiServer.start();
    server.faults.fail(503);
    expect((await get(server, '/api/v1/pods', { token: 'wrong' })).status).toBe(503);
    expect((await get(server, '/api/v1/pods', { token: 'wrong' })).status).toBe(401);
  });
});
