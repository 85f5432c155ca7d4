import { afterEach, describe, expect, it } from '@jest/globals';
import { deployments, pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import {
  deployment,
  INITIAL_EVENTS_END_ANNOTATION,
  pod,
} from '../../../src/testing/marbles/builders.js';
import { get, sleep, Stream, watch } from './client.js';

const summary = (e: any): string =>
  `${e.type} ${e.object.metadata?.name ?? '-'} ${e.object.metadata?.resourceVersion}`;

describe('FakeKubeApiServer watch', () => {
  let server: FakeKubeApiServer;
  const start = async (options = {}): Promise<FakeKubeApiServer> => {
    server = await FakeKubeApiServer.start(options);
    return server;
  };
  afterEach(() => server.stop());

  it('streams one JSON event per line: synthetic ADDED newest first, then live events', async () => {
    await start();
    for (const name of ['a', 'b', 'c']) server.create(pods, pod(name, '0'));
    const w = watch(server, '/api/v1/namespaces/default/pods');
    await w.waitForLines(3);
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    expect(w.headers['transfer-encoding']).toBe('chunked');
    server.update(pods, pod('a', '0', { status: { phase: 'Succeeded' } }));
    server.delete(pods, 'default', 'b');
    server.create(pods, pod('d', '0'));
    const events = await w.waitForEvents(6);
    expect(events.map(summary)).toEqual([
      'ADDED c 3',
      'ADDED b 2',
      'ADDED a 1',
      'MODIFIED a 4',
      'DELETED b 5',
      'ADDED d 6',
    ]);
    expect(events[3].object.status.phase).toBe('Succeeded');
    expect(w.raw.endsWith('\n')).toBe(true);
    w.close();
  });

  it('sends the events of a burst of writes in one write, as kube-apiserver flushes a watch once nothing more is queued', async () => {
    await start({ http2: false });
    server.create(pods, pod('a', '0'));
    const w = watch(server, '/api/v1/namespaces/default/pods');
    await w.waitForLines(1);
    const before = w.chunks;
    // Ten writes in one turn of the event loop, as a server handling many requests at once.
    for (let i = 0; i < 10; i++)
      server.update(pods, pod('a', '0', { metadata: { labels: { n: `${i}` } } }));
    const events = await w.waitForEvents(11);
    expect(events.slice(1).map((e) => e.object.metadata.labels.n)).toEqual(
      Array.from({ length: 10 }, (_, i) => `${i}`),
    );
    // One write of ten lines (a read may still split it, never into ten).
    expect(w.chunks - before).toBeLessThanOrEqual(2);
    // Events of later turns follow in later writes, each on its own line.
    server.update(pods, pod('a', '0', { metadata: { labels: { n: 'last' } } }));
    expect((await w.waitForEvents(12))[11].object.metadata.labels.n).toBe('last');
    w.close();
  });

  it('accepts watch=1 and resourceVersion=0 like no version', async () => {
    await start();
    server.create(pods, pod('a', '0'));
    const w = new Stream(server, '/api/v1/pods?watch=1&resourceVersion=0');
    expect((await w.waitForEvents(1)).map(summary)).toEqual(['ADDED a 1']);
    expect(server.requests[0]).toMatchObject({
      watch: true,
      query: { watch: '1', resourceVersion: '0' },
    });
    w.close();
  });

  it('replays the history after resourceVersion=N, then goes live', async () => {
    await start();
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0'));
    server.update(pods, pod('a', '0'));
    server.delete(pods, 'default', 'b');
    const w = watch(server, '/api/v1/pods?resourceVersion=2');
    await w.waitForLines(2);
    server.create(pods, pod('c', '0'));
    expect((await w.waitForEvents(3)).map(summary)).toEqual([
      'MODIFIED a 3',
      'DELETED b 4',
      'ADDED c 5',
    ]);
    w.close();
  });

  it('sends one in-stream 410 ERROR and ends for a version older than the kept history', async () => {
    await start({ historySize: 2 });
    for (const name of ['a', 'b', 'c', 'd']) server.create(pods, pod(name, '0'));
    const ok = watch(server, '/api/v1/pods?resourceVersion=2');
    expect((await ok.waitForEvents(2)).map(summary)).toEqual(['ADDED c 3', 'ADDED d 4']);
    ok.close();
    const w = watch(server, '/api/v1/pods?resourceVersion=1');
    expect(await w.ended).toEqual({ complete: true });
    expect(w.status).toBe(200);
    expect(w.events).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'too old resource version: 1 (2)',
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('expireHistory ends open watches with a 410 ERROR; older versions answer 410 afterwards', async () => {
    await start();
    server.create(pods, pod('a', '0'));
    const w = watch(server, '/api/v1/pods?resourceVersion=1');
    await w.responded;
    await server.waitForConnections(1);
    server.create(pods, pod('b', '0'));
    await w.waitForLines(1);
    server.expireHistory();
    expect(await w.ended).toEqual({ complete: true });
    expect(w.events.map((e) => [e.type, e.object.code, e.object.reason, e.object.message])).toEqual(
      [
        ['ADDED', undefined, undefined, undefined],
        ['ERROR', 410, 'Expired', 'too old resource version: 2 (3)'],
      ],
    );
    expect(server.resourceVersion).toBe('3');
    const again = watch(server, '/api/v1/pods?resourceVersion=2');
    await again.ended;
    expect(again.events.map((e) => e.object.code)).toEqual([410]);
    const current = watch(server, '/api/v1/pods?resourceVersion=3');
    await current.responded;
    server.create(pods, pod('c', '0'));
    expect((await current.waitForEvents(1)).map(summary)).toEqual(['ADDED c 4']);
    current.close();
  });

  it('sendInitialEvents: ADDED for current objects, then the initial-events-end BOOKMARK', async () => {
    await start({ bookmarkIntervalMs: 0 });
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0'));
    const w = watch(
      server,
      '/api/v1/pods?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=1',
    );
    const events = await w.waitForEvents(3);
    expect(events.slice(0, 2).map(summary).sort()).toEqual(['ADDED a 1', 'ADDED b 2']);
    expect(events[2]).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'Pod',
        apiVersion: 'v1',
        metadata: {
          resourceVersion: '2',
          annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
        },
      },
    });
    server.create(pods, pod('c', '0'));
    expect((await w.waitForEvents(4)).map(summary)[3]).toBe('ADDED c 3');
    w.close();
  });

  it('refuses sendInitialEvents without NotOlderThan and bookmarks (400 Status)', async () => {
    await start();
    for (const query of [
      'sendInitialEvents=true&allowWatchBookmarks=true',
      'sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch=NotOlderThan',
    ]) {
      const reply = await get(server, `/api/v1/pods?watch=true&${query}`);
      expect([query, reply.status, reply.json.reason, reply.json.code]).toEqual([
        query,
        400,
        'BadRequest',
        400,
      ]);
    }
  });

  it('sends periodic BOOKMARKs with the current version to watches that allow them', async () => {
    await start({ bookmarkIntervalMs: 40 });
    server.create(pods, pod('a', '0'));
    const plain = watch(server, '/api/v1/pods?resourceVersion=1');
    const w = watch(server, '/api/v1/pods?resourceVersion=1&allowWatchBookmarks=true');
    const events = await w.waitForEvents(2);
    expect(events.slice(0, 2)).toEqual([
      {
        type: 'BOOKMARK',
        object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '1' } },
      },
      {
        type: 'BOOKMARK',
        object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '1' } },
      },
    ]);
    server.create(pods, pod('b', '0'));
    await w.waitUntil(() => w.events.map(summary).includes('BOOKMARK - 2'), 'a bookmark at 2');
    const later = w.events.map(summary);
    expect(later.indexOf('ADDED b 2')).toBeLessThan(later.indexOf('BOOKMARK - 2'));
    expect(plain.events.map(summary)).toEqual(['ADDED b 2']);
    plain.close();
    w.close();
  });

  it('ends the watch cleanly after timeoutSeconds', async () => {
    await start();
    const began = Date.now();
    const w = watch(server, '/api/v1/pods?timeoutSeconds=1');
    expect(await w.ended).toEqual({ complete: true });
    expect(Date.now() - began).toBeGreaterThanOrEqual(950);
    expect(server.openWatches).toBe(0);
  });

  it('answers 504 for a version from the future', async () => {
    await start();
    const reply = await get(server, '/api/v1/pods?watch=true&resourceVersion=7');
    expect(reply.status).toBe(504);
    expect(reply.json.reason).toBe('Timeout');
  });

  it('keeps serving other watches when a client goes away', async () => {
    await start();
    const a = watch(server, '/api/v1/pods');
    const b = watch(server, '/api/v1/pods');
    await Promise.all([a.responded, b.responded]);
    a.close();
    await a.ended;
    await sleep(10);
    server.create(pods, pod('x', '0'));
    expect((await b.waitForEvents(1)).map(summary)).toEqual(['ADDED x 1']);
    expect(server.openWatches).toBe(1);
    b.close();
  });

  it('keeps historySize events per resource: other resources do not push a watch out of history', async () => {
    await start({ historySize: 2 });
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0'));
    for (const name of ['x', 'y', 'z']) server.create(deployments, deployment(name, '0'));
    const w = watch(server, '/api/v1/pods?resourceVersion=1');
    expect((await w.waitForEvents(1)).map(summary)).toEqual(['ADDED b 2']);
    w.close();
    const gone = watch(server, '/apis/apps/v1/deployments?resourceVersion=2');
    await gone.ended;
    expect(gone.events.map((e) => e.object.code)).toEqual([410]);
  });

  it('bookmarkIntervalMs: 0 sends no periodic BOOKMARK', async () => {
    await start({ bookmarkIntervalMs: 0 });
    const w = watch(server, '/api/v1/pods?allowWatchBookmarks=true');
    await w.responded;
    await sleep(100);
    server.create(pods, pod('a', '0'));
    expect((await w.waitForEvents(1)).map(summary)).toEqual(['ADDED a 1']);
    await sleep(50);
    expect(w.events).toHaveLength(1);
    w.close();
  });
});
