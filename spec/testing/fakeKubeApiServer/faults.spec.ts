import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get, sleep, watch } from './client.js';

describe('FakeKubeApiServer faults', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 20 });
    for (const name of ['a', 'b', 'c']) server.create(pods, pod(name, '0'));
  });
  afterEach(() => server.stop());

  it("fail() with match 'list' passes discovery by; 'any' fails whatever comes next", async () => {
    server.faults.fail(503, { match: 'list' });
    expect((await get(server, '/api')).status).toBe(200);
    expect((await get(server, '/api/v1/pods')).status).toBe(503);
    server.faults.fail(403);
    expect((await get(server, '/apis')).status).toBe(403);
    expect((await get(server, '/api/v1/pods')).status).toBe(200);
  });

  it('fail() with a path fails that path only, or every path below one ending in /', async () => {
    server.faults.fail(403, { path: '/api' });
    expect((await get(server, '/api/v1/pods')).status).toBe(200);
    expect((await get(server, '/apis')).status).toBe(200);
    expect((await get(server, '/api')).status).toBe(403);
    server.faults.fail(403, { path: '/apis/', times: 2 });
    expect((await get(server, '/apis')).status).toBe(200);
    expect((await get(server, '/apis/apps/v1')).status).toBe(403);
    expect((await get(server, '/apis/apps/v1/deployments')).status).toBe(403);
    expect((await get(server, '/apis/apps/v1')).status).toBe(200);
    expect(() => server.faults.fail(403, { path: 'api' })).toThrow(RangeError);
  });

  it('dropAfter(n) destroys the next watch connection(s) after n events', async () => {
    server.faults.dropAfter(2, { times: 2 });
    for (let i = 0; i < 2; i++) {
      const w = watch(server, '/api/v1/pods');
      expect(await w.ended).toEqual({ complete: false });
      expect(w.lines).toHaveLength(2);
      expect(w.raw.endsWith('\n')).toBe(true);
    }
    const fine = watch(server, '/api/v1/pods');
    expect(await fine.waitForLines(3)).toHaveLength(3);
    fine.close();
  });

  it('dropAfter counts live events too, and dropAfter(0) drops right after the headers', async () => {
    server.faults.dropAfter(1);
    const w = watch(server, '/api/v1/pods?resourceVersion=3&allowWatchBookmarks=true');
    await w.responded;
    await sleep(60); // periodic bookmarks are not counted
    server.create(pods, pod('d', '0'));
    expect(await w.ended).toEqual({ complete: false });
    expect(
      w.events.filter((e) => e.type !== 'BOOKMARK').map((e) => e.object.metadata.name),
    ).toEqual(['d']);
    server.faults.dropAfter(0);
    const zero = watch(server, '/api/v1/pods');
    expect(await zero.ended).toEqual({ complete: false });
    expect(zero.status).toBe(200);
    expect(zero.raw).toBe('');
  });

  it('cutLine writes half of an event line, then destroys the socket', async () => {
    server.faults.cutLine({ afterEvents: 1 });
    const w = watch(server, '/api/v1/pods');
    expect(await w.ended).toEqual({ complete: false });
    expect(w.lines).toHaveLength(1);
    const rest = w.raw.slice(w.raw.indexOf('\n') + 1);
    expect(rest.length).toBeGreaterThan(10);
    expect(rest).not.toContain('\n');
    expect(() => JSON.parse(rest)).toThrow();
  });

  it('stall(ms) sends headers, then nothing (no bookmarks) for ms, then everything in order', async () => {
    // Long enough that headers sent at once stay well under it on a loaded CI machine.
    server.faults.stall(1000);
    const began = Date.now();
    const w = watch(server, '/api/v1/pods?allowWatchBookmarks=true');
    await w.responded;
    expect(Date.now() - began).toBeLessThan(600);
    server.create(pods, pod('d', '0'));
    await sleep(100);
    expect(w.raw).toBe('');
    const events = await w.waitForEvents(4);
    expect(Date.now() - began).toBeGreaterThanOrEqual(990);
    expect(events.slice(0, 4).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'ADDED c',
      'ADDED b',
      'ADDED a',
      'ADDED d',
    ]);
    w.close();
  });

  it('stall(ms, { path }) stalls the next watch on that path only, another path streams', async () => {
    server.faults.stall(1000, { path: '/api/v1/namespaces/default/pods' });
    const other = watch(server, '/api/v1/namespaces/other/pods');
    const stalled = watch(server, '/api/v1/namespaces/default/pods');
    server.create(pods, pod('d', '0'));
    server.create(pods, pod('e', '0', { metadata: { namespace: 'other' } }));
    // The watch of another path took no stall: its events come at once.
    expect((await other.waitForEvents(1)).map((e) => e.object.metadata.name)).toEqual(['e']);
    expect(stalled.raw).toBe('');
    const events = await stalled.waitForEvents(4);
    expect(events.map((e) => e.object.metadata.name)).toContain('d');
    other.close();
    stalled.close();
  });

  it('fail(status) answers the next request(s) with a Status and Retry-After', async () => {
    server.faults.fail(429, { times: 2, retryAfterSeconds: 3 });
    for (let i = 0; i < 2; i++) {
      const reply = await get(server, '/api/v1/pods');
      expect(reply.status).toBe(429);
      expect(reply.headers['retry-after']).toBe('3');
      expect(reply.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server responded with status 429 (Too Many Requests)',
        reason: 'TooManyRequests',
        details: { retryAfterSeconds: 3 },
        code: 429,
      });
    }
    expect((await get(server, '/api/v1/pods')).status).toBe(200);
  });

  it('fail(..., { match }) only hits that kind of request; reason and message can be set', async () => {
    server.faults.fail(503, { match: 'watch', reason: 'Unavailable', message: 'etcd is down' });
    expect((await get(server, '/api/v1/pods')).status).toBe(200);
    const w = await get(server, '/api/v1/pods?watch=true&timeoutSeconds=1');
    expect(w.status).toBe(503);
    expect(w.json).toMatchObject({ reason: 'Unavailable', message: 'etcd is down', code: 503 });
    expect(w.headers['retry-after']).toBeUndefined();
    server.faults.fail(500, { match: 'list' });
    const ok = watch(server, '/api/v1/pods');
    await ok.waitForLines(3);
    ok.close();
    expect((await get(server, '/api/v1/pods')).json.reason).toBe('InternalError');
  });

  it('delayHeaders(ms) holds the response of the next request(s)', async () => {
    // The delay is long enough that an undelayed GET on a loaded CI machine stays well under it.
    server.faults.delayHeaders(800, { times: 2 });
    for (let i = 0; i < 2; i++) {
      const began = Date.now();
      expect((await get(server, '/api/v1/pods')).status).toBe(200);
      expect(Date.now() - began).toBeGreaterThanOrEqual(790);
    }
    const began = Date.now();
    await get(server, '/api/v1/pods');
    expect(Date.now() - began).toBeLessThan(600);
  });

  it('delayHeaders: a client that gives up during the delay leaves nothing behind', async () => {
    server.faults.delayHeaders(5000);
    const w = watch(server, '/api/v1/pods');
    await server.waitForRequests(1);
    expect(server.requests[0].status).toBe(0);
    w.close();
    await server.waitForConnections(0);
    expect(server.openWatches).toBe(0);
  });

  it('closeImmediately answers 200 and ends the body at once', async () => {
    server.faults.closeImmediately({ times: 2 });
    for (let i = 0; i < 2; i++) {
      const w = watch(server, '/api/v1/pods');
      expect(await w.ended).toEqual({ complete: true });
      expect([w.status, w.raw]).toEqual([200, '']);
    }
  });

  it('reset() disarms everything; bad arguments throw', async () => {
    server.faults.dropAfter(0);
    server.faults.fail(500);
    server.faults.stall(1000);
    server.faults.closeImmediately();
    server.faults.cutLine();
    server.faults.delayHeaders(1000);
    server.faults.reset();
    expect((await get(server, '/api/v1/pods')).status).toBe(200);
    const w = watch(server, '/api/v1/pods');
    expect(await w.waitForLines(3)).toHaveLength(3);
    w.close();
    expect(() => server.faults.fail(200)).toThrow(RangeError);
    expect(() => server.faults.dropAfter(-1)).toThrow(RangeError);
    expect(() => server.faults.closeImmediately({ times: 0 })).toThrow(RangeError);
  });

  it('dropAfter counts the initial-events-end BOOKMARK as an event', async () => {
    server.faults.dropAfter(4);
    const w = watch(
      server,
      '/api/v1/pods?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    expect(await w.ended).toEqual({ complete: false });
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED', 'BOOKMARK']);
  });

  it('consumes each kind of fault in the order it was armed, fail() by the first that matches', async () => {
    server.faults.dropAfter(1);
    server.faults.dropAfter(2);
    for (const lines of [1, 2]) {
      const w = watch(server, '/api/v1/pods');
      expect(await w.ended).toEqual({ complete: false });
      expect(w.lines).toHaveLength(lines);
    }
    server.faults.fail(500, { match: 'watch' });
    server.faults.fail(503);
    server.faults.fail(502);
    expect((await get(server, '/api/v1/pods')).status).toBe(503);
    expect((await get(server, '/api/v1/pods?watch=true')).status).toBe(500);
    expect((await get(server, '/api/v1/pods')).status).toBe(502);
  });

  it('a stalled watch cut by expireHistory gets what waited, then the 410 ERROR', async () => {
    server.faults.stall(5000);
    const w = watch(server, '/api/v1/pods');
    await w.responded;
    server.expireHistory();
    expect(await w.ended).toEqual({ complete: true });
    expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.code}`)).toEqual([
      'ADDED c',
      'ADDED b',
      'ADDED a',
      'ERROR 410',
    ]);
  });

  it('faults of different kinds combine on one connection', async () => {
    server.faults.stall(200);
    server.faults.dropAfter(1);
    const began = Date.now();
    const w = watch(server, '/api/v1/pods');
    expect(await w.ended).toEqual({ complete: false });
    expect(Date.now() - began).toBeGreaterThanOrEqual(190);
    expect(w.lines).toHaveLength(1);
  });
});
