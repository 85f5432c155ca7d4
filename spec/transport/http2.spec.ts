import { afterEach, describe, expect, it } from '@jest/globals';
import { lastValueFrom, toArray, type Subscription } from 'rxjs';
import {
  resumeFromResourceVersion,
  type LifecycleEvent,
} from '../../src/operators/resumeFromResourceVersion.js';
import { toStore } from '../../src/operators/toStore.js';
import { kubeConfigConnection } from '../../src/client/connection/kubeConfigConnection.js';
import { fromList } from '../../src/sources/fromList.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { resolveConnection } from '../../src/client/connection/resolveConnection.js';
import { transportSettings } from '../../src/transport/transportSettings.js';
import net from 'node:net';
import { collect } from '../support/rawServer.js';
import { until } from '../support/wait.js';

const keyOf = (o: KubernetesObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;

describe('HTTP/2 (FakeKubeApiServer offers h2 by ALPN)', () => {
  let server: FakeKubeApiServer;
  const subscriptions: Subscription[] = [];
  afterEach(async () => {
    for (const s of subscriptions.splice(0)) s.unsubscribe();
    await server?.stop();
  });

  /** Starts `n` watches; resolves their event arrays once each has its first event. */
  const watchMany = async (n: number) => {
    const seen: WatchEvent[][] = [];
    for (let i = 0; i < n; i++) {
      const events: WatchEvent[] = [];
      seen.push(events);
      subscriptions.push(fromWatch(server.kubeConfig(), pods).subscribe((e) => events.push(e)));
    }
    await until(
      () => seen.every((e) => e.length >= 1),
      () => `${seen.filter((e) => e.length === 0).length} watches without their first event`,
      15_000,
    );
    return seen;
  };

  it('watches, lists and logs go over HTTP/2; http2: false forces HTTP/1.1', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.create(pods, pod('a', '0'));
    await collect(watchResource(server.kubeConfig(), pods, { timeoutSeconds: 1 }));
    await lastValueFrom(fromList(server.kubeConfig(), pods));
    await lastValueFrom(
      fromPodLogs(server.kubeConfig(), { namespace: 'default', name: 'a' }).pipe(toArray()),
    );
    expect(server.requests.map((r) => r.httpVersion)).toEqual(['2.0', '2.0', '2.0']);
    const h1 = kubeConfigConnection(server.kubeConfig(), { http2: false });
    await collect(watchResource(h1, pods, { timeoutSeconds: 1 }));
    await lastValueFrom(fromList(h1, pods));
    expect(server.requests.slice(3).map((r) => r.httpVersion)).toEqual(['1.1', '1.1']);
    // One session carried all three HTTP/2 requests.
    expect(server.http2.sessions).toBe(1);
  });

  it('300 concurrent watches use at most 3 connections, and every watch gets every event', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.create(pods, pod('first', '0'));
    const seen = await watchMany(300);
    expect(server.http2.openStreams).toBe(300);
    expect(server.http2.sessions).toBeLessThanOrEqual(3);
    expect(server.openConnections).toBeLessThanOrEqual(3);
    server.create(pods, pod('second', '0'));
    await until(() => seen.every((e) => e.length === 2), 'the second event on every watch', 15_000);
    expect(seen.every((e) => e.map((x) => x.type).join() === 'ADDED,ADDED')).toBe(true);
  }, 60_000);

  it("fewer streams per session when the server's SETTINGS say so", async () => {
    server = await FakeKubeApiServer.start({
      tls: true,
      bookmarkIntervalMs: 0,
      maxConcurrentStreams: 10,
    });
    server.create(pods, pod('a', '0'));
    await watchMany(25);
    expect(server.http2.openSessions).toBe(3);
    expect([...server.http2.openStreamsPerSession].sort((a, b) => b - a)).toEqual([10, 10, 5]);
  });

  it('unsubscribing one watch resets that stream only: the server sees it within a second, the session lives on', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.create(pods, pod('a', '0'));
    const seen = await watchMany(3);
    const before = server.http2.streamsResetByClient;
    subscriptions[1].unsubscribe();
    const started = Date.now();
    // Without the reset the stream stays open; a second leaves room for a loaded CI machine.
    await until(() => server.http2.openStreams === 2, 'the stream reset', 2000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.http2.streamsResetByClient).toBe(before + 1);
    expect(server.http2).toMatchObject({ openSessions: 1, sessions: 1 });
    server.create(pods, pod('b', '0'));
    await until(() => seen[0].length === 2 && seen[2].length === 2, 'the others to go on');
    expect(seen[1]).toHaveLength(1);
  });

  it('every aborted stream is reset on the server: 300 watches unsubscribed, none left open', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.create(pods, pod('a', '0'));
    await watchMany(300);
    for (const s of subscriptions.splice(0)) s.unsubscribe();
    await until(
      () => server.http2.openStreams === 0,
      () => `${server.http2.openStreams} streams still open`,
      1000,
    );
    expect(server.openWatches).toBe(0);
    // Idle sessions close after a short idle time.
    await until(() => server.openConnections === 0, 'idle sessions to close', 3000);
  }, 60_000);

  it('an abort before the response headers resets the stream too', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.faults.delayHeaders(10_000);
    const controller = new AbortController();
    const done = collect(watchResource(server.kubeConfig(), pods, { signal: controller.signal }));
    await until(() => server.http2.openStreams === 1, 'the stream to open');
    controller.abort();
    expect(await done).toEqual([]);
    await until(() => server.http2.openStreams === 0, 'the stream reset', 2000); // headers come only after 10 s
  });

  it('GOAWAY fails the streams of the session as SYSTEM_ERROR; a resumed store carries on with nothing lost', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    for (let i = 0; i < 5; i++) server.create(pods, pod(`p${i}`, '0'));
    const lifecycle: LifecycleEvent[] = [];
    let latest: { synced: boolean; values(): readonly KubernetesObject[] } | undefined;
    subscriptions.push(
      fromWatch(server.kubeConfig(), pods)
        .pipe(resumeFromResourceVersion({ onLifecycle: (e) => lifecycle.push(e) }), toStore())
        .subscribe((store) => (latest = store)),
    );
    await until(() => latest?.synced === true && latest.values().length === 5, 'the first sync');
    const sessionsBefore = server.http2.sessions;
    server.goaway();
    // Changes while the pipeline reconnects.
    server.create(pods, pod('after-goaway', '0'));
    server.delete(pods, 'default', 'p0');
    await until(
      () => server.http2.sessions > sessionsBefore && server.http2.openStreams === 1,
      'a new session carrying the watch',
      5000,
    );
    server.create(pods, pod('later', '0'));
    const expected = () => server.objects(pods).map(keyOf).sort().join();
    await until(
      () => latest!.values().map(keyOf).sort().join() === expected(),
      () => `store ${latest!.values().map(keyOf).sort().join()} vs server ${expected()}`,
      5000,
    );
    const failures = lifecycle.flatMap((e) =>
      e.type === 'disconnected' && e.error ? [e.error] : [],
    );
    expect(failures[0]).toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 0 });
    expect(failures[0].message).toMatch(/GOAWAY/);
  });

  it('a dead session (PING unanswered) fails its streams as SYSTEM_ERROR', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.create(pods, pod('a', '0'));
    // A TCP relay that can go silent both ways, as a dead network path does.
    let frozen = false;
    const sockets: net.Socket[] = [];
    const relay = net.createServer((client) => {
      const upstream = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      sockets.push(client, upstream);
      client.on('data', (d) => frozen || upstream.write(d));
      upstream.on('data', (d) => frozen || client.write(d));
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const saved = { ...transportSettings };
    transportSettings.http2PingIdleMs = 200;
    transportSettings.http2PingTimeoutMs = 300;
    try {
      const resolved = await resolveConnection(server.kubeConfig());
      const port = (relay.address() as net.AddressInfo).port;
      const cluster = {
        resolve: async () => ({ ...resolved, server: `https://127.0.0.1:${port}` }),
      };
      const events: WatchEvent[] = [];
      let completed = false;
      subscriptions.push(
        fromWatch(cluster, pods).subscribe({
          next: (e) => events.push(e),
          complete: () => (completed = true),
        }),
      );
      await until(() => events.length === 1, 'the first event');
      expect(server.requests[0].httpVersion).toBe('2.0');
      frozen = true;
      await until(() => completed, 'the dead session to be noticed', 3000);
      expect(events[1]).toMatchObject({
        type: 'ERROR',
        error: { errorType: 'SYSTEM_ERROR', statusCode: 0 },
      });
      expect((events[1] as Extract<WatchEvent, { type: 'ERROR' }>).error.message).toMatch(/PING/);
    } finally {
      Object.assign(transportSettings, saved);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    }
  });

  it('a server that does not offer h2 is spoken to over HTTP/1.1', async () => {
    server = await FakeKubeApiServer.start({ tls: true, http2: false, bookmarkIntervalMs: 0 });
    server.create(pods, pod('a', '0'));
    expect((await lastValueFrom(fromList(server.kubeConfig(), pods))).items).toHaveLength(1);
    await collect(watchResource(server.kubeConfig(), pods, { timeoutSeconds: 1 }));
    expect(server.requests.map((r) => r.httpVersion)).toEqual(['1.1', '1.1']);
  });
});
