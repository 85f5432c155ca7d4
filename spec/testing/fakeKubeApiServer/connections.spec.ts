import { afterEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { V1Pod } from '@kubernetes/client-node';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get, watch } from './client.js';

describe('FakeKubeApiServer connections and lifecycle', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('counts open sockets and logs each open and close with its id', async () => {
    server = await FakeKubeApiServer.start();
    expect(server.openConnections).toBe(0);
    const w = watch(server, '/api/v1/pods');
    await w.responded;
    expect(server.openConnections).toBe(1);
    expect(server.openWatches).toBe(1);
    w.close();
    await server.waitForConnections(0);
    expect(server.openWatches).toBe(0);
    expect(server.connectionLog.map(({ event, id }) => [event, id])).toEqual([
      ['open', 1],
      ['close', 1],
    ]);
    expect(server.connectionLog[1].at).toBeGreaterThanOrEqual(server.connectionLog[0].at);
  });

  it('sees the socket closed after a server-side drop', async () => {
    server = await FakeKubeApiServer.start();
    server.create(pods, pod('a', '0'));
    server.faults.dropAfter(1);
    const w = watch(server, '/api/v1/pods');
    await w.ended;
    await server.waitForConnections(0);
  });

  it('waitForConnections and waitForRequests reject after their timeout', async () => {
    server = await FakeKubeApiServer.start();
    await expect(server.waitForConnections(3, 30)).rejects.toThrow(
      /0 connections open, waiting for 3/,
    );
    await expect(server.waitForRequests(1, 30)).rejects.toThrow(/0 requests, waiting for 1/);
  });

  it('keepAlive: false closes the socket after every non-streaming response', async () => {
    server = await FakeKubeApiServer.start({ keepAlive: false });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const status = await new Promise<string | undefined>((resolve, reject) => {
        http
          .get(
            `${server.url}/api/v1/pods`,
            { agent, headers: { authorization: 'Bearer test-token' } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.headers.connection));
            },
          )
          .on('error', reject);
      });
      expect(status).toBe('close');
      await server.waitForConnections(0);
    } finally {
      agent.destroy();
    }
  });

  it('stop() destroys open streams and sockets, clears timers, and can be called twice', async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 10 });
    server.faults.delayHeaders(10_000);
    const delayed = watch(server, '/api/v1/pods');
    const w1 = watch(server, '/api/v1/pods?allowWatchBookmarks=true&timeoutSeconds=100');
    const w2 = watch(server, '/api/v1/pods?timeoutSeconds=100');
    await Promise.all([w1.responded, w2.responded, server.waitForRequests(3)]);
    await server.stop();
    expect(await w1.ended).toEqual({ complete: false });
    expect(await w2.ended).toEqual({ complete: false });
    await delayed.ended;
    expect(server.openConnections).toBe(0);
    expect(server.openWatches).toBe(0);
    await server.stop();
    await expect(get(server, '/api/v1/pods')).rejects.toThrow();
  });

  it('restart() listens again on the same port and keeps objects, versions and records', async () => {
    server = await FakeKubeApiServer.start();
    server.create(pods, pod('a', '0'));
    const { port, url } = server;
    const w = watch(server, '/api/v1/pods');
    await w.waitForLines(1);
    await server.restart();
    expect(await w.ended).toEqual({ complete: false });
    expect([server.port, server.url]).toEqual([port, url]);
    const reply = await get(server, '/api/v1/pods');
    expect(reply.json.items.map((p: V1Pod) => p.metadata?.name)).toEqual(['a']);
    expect(reply.json.metadata.resourceVersion).toBe('1');
    server.create(pods, pod('b', '0'));
    expect(server.resourceVersion).toBe('2');
    const replay = watch(server, '/api/v1/pods?resourceVersion=1');
    expect((await replay.waitForEvents(1))[0].object.metadata.name).toBe('b');
    replay.close();
    expect(server.requests).toHaveLength(3);
    const ids = server.connectionLog.filter((e) => e.event === 'open').map((e) => e.id);
    expect(ids).toEqual([1, 2, 3]);
  });

  it('kubeConfig over HTTP: skipTLSVerify (client-node refuses http:// otherwise) and the token', () => {
    return FakeKubeApiServer.start().then((s) => {
      server = s;
      const kc = server.kubeConfig({ context: 'dev', namespace: 'prod' });
      expect(kc.getCurrentContext()).toBe('dev');
      expect(kc.getCurrentCluster()).toMatchObject({ server: server.url, skipTLSVerify: true });
      expect(kc.getCurrentUser()?.token).toBe('test-token');
      expect(kc.getContextObject('dev')?.namespace).toBe('prod');
      expect(server.kubeConfig({ token: 'other' }).getCurrentUser()?.token).toBe('other');
      expect(server.kubeConfig({ user: 'none' }).getCurrentUser()?.token).toBeUndefined();
      expect(() => server.kubeConfig({ user: 'cert' })).toThrow(/clientCA/);
    });
  });

  it('restart() keeps the token and the faults armed before it', async () => {
    server = await FakeKubeApiServer.start({ token: 'one' });
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0'));
    server.rotateToken('two');
    server.faults.dropAfter(1);
    await server.restart();
    expect((await get(server, '/api/v1/pods', { token: 'one' })).status).toBe(401);
    const w = watch(server, '/api/v1/pods', { token: 'two' });
    expect(await w.ended).toEqual({ complete: false });
    expect(w.lines).toHaveLength(1);
  });

  it('start() refuses a bad historySize and clientCA without tls', async () => {
    server = await FakeKubeApiServer.start();
    await expect(FakeKubeApiServer.start({ historySize: -1 })).rejects.toThrow(RangeError);
    await expect(FakeKubeApiServer.start({ historySize: 1.5 })).rejects.toThrow(RangeError);
    await expect(FakeKubeApiServer.start({ clientCA: true })).rejects.toThrow(/needs tls/);
  });
});
