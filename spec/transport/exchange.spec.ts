import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { lastValueFrom, toArray } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import type { ClusterConnection, ResolvedConnection, WatchEvent } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { RawServer, collect, line, rawPod, streamChunks } from '../support/rawServer.js';
import { sleep } from '../support/wait.js';

const names = (events: WatchEvent[]) =>
  events.map((e) =>
    e.type === 'ERROR' ? `ERROR:${e.error.errorType}` : (e.object.metadata?.name ?? ''),
  );

/** A ClusterConnection that resolves to exactly this (the raw server's URL by default). */
function connection(raw: RawServer, resolved: Partial<ResolvedConnection> = {}): ClusterConnection {
  return {
    name: 'custom',
    resolve: async () => ({
      server: raw.url,
      headers: { authorization: 'Bearer custom-token' },
      ...resolved,
    }),
  };
}

describe('the transport (undici)', () => {
  let raw: RawServer;
  beforeAll(async () => {
    raw = await RawServer.start();
  });
  afterEach(async () => {
    await raw.waitForNoSockets(2000);
    raw.requests.length = 0;
  });
  afterAll(() => raw.stop());

  const answer = streamChunks([
    line('ADDED', rawPod('a', '1')),
    line('MODIFIED', rawPod('a', '2')),
  ]);

  it("sends a KubeConfig's watch with its credentials, kube-rx's user agent and no compression", async () => {
    raw.handler = answer;
    const events = await collect(watchResource(raw.kubeConfig('kc-token'), pods));
    expect(names(events)).toEqual(['a', 'a']);
    const { headers } = raw.requests[0];
    expect(headers['user-agent']).toBe('kube-rx');
    expect(headers.authorization).toBe('Bearer kc-token');
    expect(headers.accept).toBe('application/json');
    expect(headers['accept-encoding']).toBeUndefined();
    expect(headers.host).toBe(new URL(raw.url).host);
  });

  it('keeps the path prefix of a server URL (a cluster behind a proxy path)', async () => {
    raw.handler = answer;
    const prefixed = connection(raw, { server: `${raw.url}/k8s/clusters/c-1/` });
    const events = await lastValueFrom(fromWatch(prefixed, pods).pipe(toArray()));
    expect(names(events)).toEqual(['a', 'a']);
    expect(raw.requests[0].path).toBe('/k8s/clusters/c-1/api/v1/pods');
    expect(raw.requests[0].headers.authorization).toBe('Bearer custom-token');
  });

  it('uses exactly what a custom connection resolves: its headers, and credentials in its URL', async () => {
    raw.handler = answer;
    const custom = connection(raw, { headers: { 'X-Tenant': 'blue', Authorization: 'Bearer c' } });
    const withUserInfo = connection(raw, {
      server: raw.url.replace('http://', 'http://user:pw@'),
      headers: {},
    });
    for (const cluster of [custom, withUserInfo])
      expect(names(await collect(watchResource(cluster, pods)))).toEqual(['a', 'a']);
    expect(raw.requests[0].headers).toMatchObject({
      'x-tenant': 'blue',
      authorization: 'Bearer c',
    });
    expect(raw.requests[1].headers.authorization).toBe(
      `Basic ${Buffer.from('user:pw').toString('base64')}`,
    );
  });

  it('a body cut short (Content-Length or chunked) is a SYSTEM_ERROR after the complete events', async () => {
    const event = line('ADDED', rawPod('a', '1'));
    for (const framing of ['content-length', 'chunked']) {
      raw.handler = (req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(framing === 'content-length' && { 'content-length': String(event.length + 500) }),
        });
        res.write(event + '{"type":"ADDED","obj');
        setTimeout(() => req.socket.destroy(), 20);
      };
      const viaGenerator = await collect(watchResource(connection(raw), pods));
      const viaObservable = await lastValueFrom(fromWatch(connection(raw), pods).pipe(toArray()));
      for (const events of [viaGenerator, viaObservable])
        expect({ framing, events: names(events) }).toEqual({
          framing,
          events: ['a', 'ERROR:SYSTEM_ERROR'],
        });
    }
  });

  it('refuses a credential that would break the request, without its value in the message', async () => {
    const broken = connection(raw, { headers: { authorization: 'Bearer x\r\nx-injected: 1' } });
    const events = await collect(watchResource(broken, pods));
    expect(names(events)).toEqual(['ERROR:SYSTEM_ERROR']);
    const error = (events[0] as Extract<WatchEvent, { type: 'ERROR' }>).error;
    expect(error.message).toMatch(/authorization/i);
    expect(error.message).not.toMatch(/Bearer|injected/);
    expect(raw.requests).toEqual([]);
  });

  it('reports what is refused before connecting (a port out of range, an unreadable client certificate) as data', async () => {
    const badPort = connection(raw, { server: 'http://127.0.0.1:70000' });
    const badCert = connection(raw, {
      server: 'https://127.0.0.1:1',
      tls: { cert: 'not a certificate', key: 'not a key' },
    });
    for (const cluster of [badPort, badCert]) {
      const viaGenerator = await collect(watchResource(cluster, pods));
      const viaObservable = await lastValueFrom(fromWatch(cluster, pods).pipe(toArray()));
      for (const events of [viaGenerator, viaObservable]) {
        expect(names(events)).toEqual(['ERROR:SYSTEM_ERROR']);
        expect((events[0] as Extract<WatchEvent, { type: 'ERROR' }>).error.resourcePath).toBe(
          '/api/v1/pods',
        );
      }
    }
  });

  it('sends nothing when the signal aborts after the credentials are resolved, before the request goes out', async () => {
    raw.handler = answer;
    for (const watch of ['watchResource', 'fromWatch']) {
      const controller = new AbortController();
      // Reading the credentials is the last step before sending: the abort lands in between.
      const headers = {
        get authorization() {
          controller.abort();
          return 'Bearer late-abort';
        },
      } as Record<string, string>;
      const cluster = connection(raw, { headers });
      const options = { signal: controller.signal };
      const events =
        watch === 'watchResource'
          ? await collect(watchResource(cluster, pods, options))
          : await lastValueFrom(fromWatch(cluster, pods, options).pipe(toArray()));
      expect({ watch, events }).toEqual({ watch, events: [] });
    }
    expect(raw.requests).toEqual([]);
  });

  it('list pages and reconnects reuse one keep-alive connection', async () => {
    const seen = new Set<unknown>();
    raw.handler = (req, res) => {
      seen.add(req.socket);
      const query = new URL(req.url!, 'http://x').searchParams;
      if (query.get('watch') === 'true')
        return streamChunks([line('ADDED', rawPod('w', '3'))])(req, res);
      const page = Number(query.get('continue') ?? '0');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          metadata: { resourceVersion: '3', ...(page < 2 && { continue: String(page + 1) }) },
          items: [rawPod(`p${page}`, '3')],
        }),
      );
    };
    const list = await lastValueFrom(fromList(raw.kubeConfig(), pods, { limit: 1 }));
    expect(list.items.map((p) => (p as { metadata: { name: string } }).metadata.name)).toEqual([
      'p0',
      'p1',
      'p2',
    ]);
    for (let i = 0; i < 3; i++) await collect(watchResource(raw.kubeConfig(), pods));
    expect(raw.requests).toHaveLength(6);
    expect(seen.size).toBe(1);
    // An idle keep-alive connection does not stay: it closes after a short idle time.
    await raw.waitForNoSockets(2000);
  });

  it('stops reading while a watchResource consumer is not pulling, and loses nothing after', async () => {
    const total = 30_000;
    const padding = 'x'.repeat(2000);
    let writtenWhileStalled = 0;
    let written = 0;
    raw.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let next = 0;
      const pump = () => {
        while (next < total) {
          const event = line('MODIFIED', rawPod(`p${next}`, String(next + 1), { padding }));
          written += event.length;
          next++;
          if (!res.write(event)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const seen: string[] = [];
    for await (const event of watchResource(raw.kubeConfig(), pods)) {
      if (event.type === 'ERROR') throw event.error;
      if (seen.length === 0) {
        await sleep(500);
        writtenWhileStalled = written;
      }
      seen.push(event.resourceVersion!);
    }
    // About 60 MB are sent in all; a consumer that stalls holds the server to its buffers.
    expect(written).toBeGreaterThan(55 * 2 ** 20);
    expect(writtenWhileStalled).toBeLessThan(24 * 2 ** 20);
    expect(seen.length).toBe(total);
    expect(seen.every((version, i) => version === String(i + 1))).toBe(true);
  });

  it('over TLS with a client certificate, pausing and resuming loses and duplicates nothing', async () => {
    const tls = await FakeKubeApiServer.start({ tls: true, clientCA: true, token: null });
    try {
      const padding = 'y'.repeat(4000);
      for (let i = 0; i < 3000; i++)
        tls.create(pods, { ...pod(`p${String(i).padStart(4, '0')}`, '0'), padding } as never);
      const seen: string[] = [];
      const watch = watchResource(tls.kubeConfig({ user: 'cert' }), pods, {
        resourceVersion: '0',
        timeoutSeconds: 1,
      });
      for await (const event of watch) {
        if (event.type === 'ERROR') throw event.error;
        // Stalls long enough for the queue to fill and the socket to be paused, twice.
        if (seen.length === 0 || seen.length === 1500) await sleep(300);
        seen.push(event.object.metadata!.name!);
      }
      expect(seen.length).toBe(3000);
      expect(new Set(seen).size).toBe(3000);
      expect(tls.requests[0].clientCertValid).toBe(true);
    } finally {
      await tls.stop();
    }
  });
});
