import http from 'node:http';
import https from 'node:https';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { lastValueFrom, toArray } from 'rxjs';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/sources/resources.js';
import type { ClusterConnection, WatchEvent } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { RawServer, collect, line, rawPod, streamChunks } from '../support/rawServer.js';
import { sleep } from '../support/wait.js';

const names = (events: WatchEvent[]) =>
  events.map((e) =>
    e.type === 'ERROR' ? `ERROR:${e.error.errorType}` : (e.object.metadata?.name ?? ''),
  );

/** A ClusterConnection for the raw server with the given node-fetch options. */
function connection(raw: RawServer, init: Record<string, unknown>, server = raw.url) {
  return {
    name: 'custom',
    resolve: async () => ({
      server,
      init: { headers: { authorization: 'Bearer custom-token' }, ...init },
    }),
  } as ClusterConnection;
}

describe('the streaming transport', () => {
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

  it("sends a KubeConfig's watch with kube-rx's own HTTP/1.1 client, one connection closed after", async () => {
    raw.handler = answer;
    const events = await collect(watchResource(raw.kubeConfig('kc-token'), pods));
    expect(names(events)).toEqual(['a', 'a']);
    const { headers } = raw.requests[0];
    expect(headers['user-agent']).toBe('kube-rx');
    expect(headers.connection).toBe('close');
    expect(headers.authorization).toBe('Bearer kc-token');
    expect(headers.accept).toBe('application/json');
    expect(headers['accept-encoding']).toBeUndefined();
    expect(headers.host).toBe(new URL(raw.url).host);
  });

  it('keeps the path prefix of a server URL (a cluster behind a proxy path)', async () => {
    raw.handler = answer;
    const prefixed = connection(raw, { agent: new http.Agent() }, `${raw.url}/k8s/clusters/c-1/`);
    const events = await lastValueFrom(fromWatch(prefixed, pods).pipe(toArray()));
    expect(names(events)).toEqual(['a', 'a']);
    expect(raw.requests[0].path).toBe('/k8s/clusters/c-1/api/v1/pods');
    expect(raw.requests[0].headers['user-agent']).toBe('kube-rx');
  });

  it('hands an agent of another kind (a proxy agent, say) to node-fetch, with the same results', async () => {
    raw.handler = answer;
    let connects = 0;
    class CountingAgent extends http.Agent {
      override createConnection(...args: Parameters<http.Agent['createConnection']>) {
        connects++;
        return super.createConnection(...args);
      }
    }
    const custom = connection(raw, { agent: new CountingAgent() });
    const viaGenerator = await collect(watchResource(custom, pods));
    const viaObservable = await lastValueFrom(fromWatch(custom, pods).pipe(toArray()));
    expect(names(viaGenerator)).toEqual(['a', 'a']);
    expect(names(viaObservable)).toEqual(['a', 'a']);
    expect(connects).toBe(2);
    expect(raw.requests.map((r) => r.headers['user-agent'])).toEqual([
      expect.stringMatching(/node-fetch/),
      expect.stringMatching(/node-fetch/),
    ]);
    expect(raw.requests[0].headers.authorization).toBe('Bearer custom-token');
  });

  it('through node-fetch too, a body cut short (Content-Length or chunked) is a SYSTEM_ERROR after the complete events', async () => {
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
      const proxied = connection(raw, { agent: new (class extends http.Agent {})() });
      const viaGenerator = await collect(watchResource(proxied, pods));
      const viaObservable = await lastValueFrom(fromWatch(proxied, pods).pipe(toArray()));
      for (const events of [viaGenerator, viaObservable])
        expect({ framing, events: names(events) }).toEqual({
          framing,
          events: ['a', 'ERROR:SYSTEM_ERROR'],
        });
    }
  });

  it('hands other node-fetch options, and credentials in the URL, to node-fetch', async () => {
    raw.handler = answer;
    const withOptions = connection(raw, { agent: new http.Agent(), size: 0 });
    const withUserInfo = connection(raw, {}, raw.url.replace('http://', 'http://user:pw@'));
    for (const cluster of [withOptions, withUserInfo])
      expect(names(await collect(watchResource(cluster, pods)))).toEqual(['a', 'a']);
    expect(raw.requests.map((r) => r.headers['user-agent'])).toEqual([
      expect.stringMatching(/node-fetch/),
      expect.stringMatching(/node-fetch/),
    ]);
  });

  it('refuses a credential that would break the request, naming the header but not the value', async () => {
    const broken = connection(raw, { headers: { authorization: 'Bearer x\r\nx-injected: 1' } });
    const events = await collect(watchResource(broken, pods));
    expect(names(events)).toEqual(['ERROR:SYSTEM_ERROR']);
    const error = (events[0] as Extract<WatchEvent, { type: 'ERROR' }>).error;
    expect(error.message).toMatch(/authorization header/);
    expect(error.message).not.toMatch(/Bearer|injected/);
    expect(raw.requests).toEqual([]);
  });

  it('reports what Node refuses before connecting (a port out of range, an unreadable client certificate) as data', async () => {
    const badPort = connection(raw, { agent: new http.Agent() }, 'http://127.0.0.1:70000');
    const badCert = connection(
      raw,
      { agent: new https.Agent({ cert: 'not a certificate', key: 'not a key' }) },
      'https://127.0.0.1:1',
    );
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
      };
      const cluster = connection(raw, { agent: new http.Agent(), headers });
      const options = { signal: controller.signal };
      const events =
        watch === 'watchResource'
          ? await collect(watchResource(cluster, pods, options))
          : await lastValueFrom(fromWatch(cluster, pods, options).pipe(toArray()));
      expect({ watch, events }).toEqual({ watch, events: [] });
    }
    expect(raw.requests).toEqual([]);
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
