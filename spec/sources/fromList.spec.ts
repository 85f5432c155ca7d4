import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Worker } from 'node:worker_threads';
import type { V1Pod } from '@kubernetes/client-node';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { WatchError } from '../../src/WatchError.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { makeTlsMaterial } from '../../src/testing/fakeKubeApiServer/tls.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { RawServer } from '../support/rawServer.js';
import { until } from '../support/wait.js';

describe('fromList', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    server.create(pods, pod('one', '0', { metadata: { namespace: 'n1' } }));
    for (let i = 0; i < 2; i++)
      server.create(pods, pod(`two-${i}`, '0', { metadata: { namespace: 'n2' } }));
    for (let i = 0; i < 1500; i++)
      server.create(
        pods,
        pod(`big-${String(i).padStart(4, '0')}`, '0', { metadata: { namespace: 'n1500' } }),
      );
  });
  afterAll(() => server.stop());

  const listRequests = () => server.requests.filter((r) => !r.watch);

  it.each([
    ['n1', 1, 1],
    ['n2', 2, 1],
    ['n1500', 1500, 3],
  ])(
    'lists %s: %i items in %i page(s) of 500, at the resourceVersion of the first page',
    async (namespace, count, pages) => {
      const before = listRequests().length;
      const result = await firstValueFrom(fromList(server.kubeConfig(), pods, { namespace }));
      expect(result.items).toHaveLength(count);
      expect(new Set(result.items.map((p) => p.metadata?.name)).size).toBe(count);
      expect(result.resourceVersion).toBe(server.resourceVersion);
      const made = listRequests().slice(before);
      expect(made).toHaveLength(pages);
      expect(made.every((r) => r.query.limit === '500')).toBe(true);
      expect(made.slice(1).every((r) => r.query.continue)).toBe(true);
    },
  );

  it('honours limit and the selectors', async () => {
    const before = listRequests().length;
    const result = await firstValueFrom(
      fromList(server.kubeConfig(), pods, {
        namespace: 'n2',
        limit: 1,
        fieldSelector: 'metadata.name=two-1',
      }),
    );
    expect(result.items.map((p) => p.metadata?.name)).toEqual(['two-1']);
    expect(listRequests()[before].query).toMatchObject({
      limit: '1',
      fieldSelector: 'metadata.name=two-1',
    });
  });

  it('a 403 errors with WatchError FORBIDDEN', async () => {
    server.faults.fail(403, { match: 'list', message: 'pods is forbidden' });
    const error = await firstValueFrom(fromList(server.kubeConfig(), pods)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WatchError);
    expect(error).toMatchObject({
      errorType: 'FORBIDDEN',
      statusCode: 403,
      resourcePath: '/api/v1/pods',
    });
  });

  it('an invalid namespace errors with BAD_REQUEST and sends nothing', async () => {
    const before = server.requests.length;
    const error = await firstValueFrom(
      fromList(server.kubeConfig(), pods, { namespace: 'Bad_NS' }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorType: 'BAD_REQUEST', statusCode: 400 });
    expect(server.requests.length).toBe(before);
  });

  it('a WatchSource lists its own resource with its namespace and selectors', async () => {
    const result = await firstValueFrom(
      fromWatch(server.kubeConfig(), pods, { namespace: 'n2', labelSelector: 'x!=y' }).list(),
    );
    expect(result.items).toHaveLength(2);
    expect(server.requests[server.requests.length - 1].query).toMatchObject({
      labelSelector: 'x!=y',
    });
  });
});

describe('fromList on a raw server', () => {
  /** A list page as the API server writes it: kind, apiVersion, metadata, then items. */
  const page = (version: string, names: string[], next?: string): string =>
    JSON.stringify({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: version, ...(next && { continue: next }) },
      items: names.map((name) => ({
        metadata: { name, namespace: 'd', resourceVersion: version },
      })),
    });
  const expired = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'Expired',
    code: 410,
    message: 'The provided continue parameter is too old to display a consistent list result.',
  });

  it('restarts the whole list once when a continue token has expired', async () => {
    let firstPages = 0;
    const raw = await RawServer.start((req, res) => {
      const token = new URL(req.url ?? '/', 'http://x').searchParams.get('continue');
      const status = token === 'old' ? 410 : 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      if (token === null)
        res.end(page(`${++firstPages}0`, [`a${firstPages}`], firstPages === 1 ? 'old' : 'new'));
      else res.end(token === 'old' ? expired : page('20', ['b']));
    });
    const warnings: string[] = [];
    try {
      const result = await firstValueFrom(
        fromList(raw.kubeConfig(), pods, { logger: { warn: (m) => warnings.push(m) } }),
      );
      expect(result.items.map((p) => p.metadata?.name)).toEqual(['a2', 'b']);
      expect(result.resourceVersion).toBe('20');
      expect(raw.requests.map((r) => r.query.get('continue'))).toEqual([null, 'old', null, 'new']);
      expect(warnings).toEqual([
        'the continue token of a list of /api/v1/pods expired; listing again from the start',
      ]);

      // Expired again on the second attempt: the list fails with GONE.
      firstPages = 0;
      raw.handler = (req, res) => {
        const token = new URL(req.url ?? '/', 'http://x').searchParams.get('continue');
        res.writeHead(token ? 410 : 200, { 'content-type': 'application/json' });
        res.end(token ? expired : page('30', ['c'], 'old'));
      };
      const error = await firstValueFrom(fromList(raw.kubeConfig(), pods)).catch((e: unknown) => e);
      expect(error).toMatchObject({ errorType: 'GONE', statusCode: 410 });
    } finally {
      await raw.stop();
    }
  });

  it.each([['HTTP/1.1'], ['HTTP/2']])(
    'asks for the next page before it decodes this one (%s): the server prepares it meanwhile',
    async (protocol) => {
      const h2 = protocol === 'HTTP/2';
      const tls = h2 ? makeTlsMaterial(false) : undefined;
      // The server runs on its own thread, so it sees requests while this one decodes.
      const server = new Worker(
        `const { parentPort, workerData } = require('node:worker_threads');
        const http = require('node:http');
        const http2 = require('node:http2');
        const page = ${page.toString()};
        const next = { '': 'p2', p2: 'p3' };
        const answer = (req, res) => {
          const token = new URL(req.url, 'http://x').searchParams.get('continue') ?? '';
          parentPort.postMessage({ token, at: Date.now(), httpVersion: req.httpVersion });
          // Later pages take the server a while, which the client spends decoding.
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(page('5', ['from-' + (token || 'p1')], next[token]));
            parentPort.postMessage({ answered: token, at: Date.now() });
          }, token ? 800 : 0);
        };
        const server = workerData
          ? http2.createSecureServer(workerData, answer)
          : http.createServer(answer);
        server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));`,
        { eval: true, workerData: tls?.server },
      );
      try {
        const arrivals: { token: string; at: number; httpVersion: string }[] = [];
        const answered: { answered: string; at: number }[] = [];
        type Message = { port?: number; answered?: string } & (typeof arrivals)[number];
        const port = await new Promise<number>((resolve) =>
          server.on('message', (m: Message) => {
            if (m.port) resolve(m.port);
            else if (m.answered !== undefined) answered.push({ answered: m.answered, at: m.at });
            else arrivals.push(m);
          }),
        );
        const decoded: { name: string; started: number; at: number }[] = [];
        const slowDecode = (pod: V1Pod): V1Pod => {
          const started = Date.now();
          while (Date.now() - started < 300) {
            // A page that takes long to decode.
          }
          decoded.push({ name: pod.metadata!.name!, started, at: Date.now() });
          return pod;
        };
        const cluster = {
          resolve: async () => ({
            server: `${h2 ? 'https' : 'http'}://127.0.0.1:${port}`,
            ...(tls && { tls: { ca: tls.caPem } }),
          }),
        };
        const result = await firstValueFrom(fromList(cluster, pods, { transform: slowDecode }));
        expect(result.items.map((p) => p.metadata?.name)).toEqual([
          'from-p1',
          'from-p2',
          'from-p3',
        ]);
        await until(() => arrivals.length === 3, 'the three requests');
        expect(arrivals.map((a) => [a.token, a.httpVersion])).toEqual(
          ['', 'p2', 'p3'].map((token) => [token, h2 ? '2.0' : '1.1']),
        );
        // Page 2 was asked for while page 1 decoded, and page 3 while page 2 did: each decode
        // began before the server answered the page after it (not once its answer came).
        expect(arrivals[1].at).toBeLessThan(decoded[0].at);
        expect(arrivals[2].at).toBeLessThan(decoded[1].at);
        await until(() => answered.length === 3, 'the three answers');
        expect(answered.map((a) => a.answered)).toEqual(['', 'p2', 'p3']);
        expect(decoded[0].started).toBeLessThan(answered[1].at);
        expect(decoded[1].started).toBeLessThan(answered[2].at);
      } finally {
        await server.terminate();
      }
    },
  );

  it('a page whose parsed continue token is not the one read from its head gives up the page asked for ahead', async () => {
    // The right page is answered only once the wrong one is given up: the list cannot end
    // unless the page asked for with the wrong token is aborted while the list goes on.
    let wrongGivenUp: () => void;
    const givenUp = new Promise<void>((resolve) => (wrongGivenUp = resolve));
    const raw = await RawServer.start((req, res) => {
      const token = new URL(req.url ?? '/', 'http://x').searchParams.get('continue');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (token === 'wrong') req.socket.once('close', () => wrongGivenUp());
      else if (token === 'right') void givenUp.then(() => res.end(page('1', ['b'])));
      // A duplicated key: the head shows the first token, JSON.parse keeps the last.
      else
        res.end(page('1', ['a'], 'right').replace('"continue":', '"continue":"wrong","continue":'));
    });
    try {
      const result = await firstValueFrom(fromList(raw.kubeConfig(), pods));
      expect(result.items.map((p) => p.metadata?.name)).toEqual(['a', 'b']);
      expect(raw.requests.map((r) => r.query.get('continue'))).toEqual([null, 'wrong', 'right']);
    } finally {
      await raw.stop();
    }
  });

  it('a page that cannot be decoded gives up the page asked for ahead', async () => {
    let aheadClosed = false;
    const raw = await RawServer.start((req, res) => {
      if (new URL(req.url ?? '/', 'http://x').searchParams.has('continue')) {
        // The page asked for ahead never comes: only giving it up closes its connection.
        req.socket.once('close', () => (aheadClosed = true));
        res.writeHead(200, { 'content-type': 'application/json' });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(page('1', ['a'], 'next').replace('"items":[', '"items":[,'));
    });
    try {
      const error = await firstValueFrom(fromList(raw.kubeConfig(), pods)).catch((e: unknown) => e);
      expect(error).toMatchObject({ errorType: 'PARSE_ERROR' });
      // The request ahead was written before the parse; this server (same thread) reads it now.
      await until(() => raw.requests.length === 2, 'the request ahead');
      expect(raw.requests.map((r) => r.query.get('continue'))).toEqual([null, 'next']);
      await until(() => aheadClosed, 'the page asked for ahead to be given up', 2000);
    } finally {
      await raw.stop();
    }
  });

  it('a page cut short (Content-Length or chunked) errors with SYSTEM_ERROR instead of waiting forever', async () => {
    const page = '{"metadata":{"resourceVersion":"1"},"items":[';
    for (const framing of ['content-length', 'chunked']) {
      const raw = await RawServer.start((req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(framing === 'content-length' && { 'content-length': String(page.length + 500) }),
        });
        res.write(page);
        setTimeout(() => req.socket.destroy(), 20);
      });
      try {
        const error = await firstValueFrom(fromList(raw.kubeConfig(), pods)).catch(
          (e: unknown) => e,
        );
        expect({ framing, error }).toMatchObject({
          framing,
          error: { errorType: 'SYSTEM_ERROR', statusCode: 0, resourcePath: '/api/v1/pods' },
        });
      } finally {
        await raw.stop();
      }
    }
  });

  it('is abortable: unsubscribing, or aborting options.signal, closes the page in flight', async () => {
    // A page whose head and start arrive, and whose rest never does.
    const raw = await RawServer.start((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"metadata":{"resourceVersion":"1"},"items":[');
    });
    try {
      const subscription = fromList(raw.kubeConfig(), pods).subscribe();
      await until(() => raw.requests.length === 1, 'the list request');
      subscription.unsubscribe();
      await raw.waitForNoSockets(2000); // never without the abort; roomy for a loaded CI machine

      const controller = new AbortController();
      const outcome = lastValueFrom(
        fromList(raw.kubeConfig(), pods, { signal: controller.signal }),
        { defaultValue: 'completed without a list' },
      );
      await until(() => raw.requests.length === 2, 'the second list request');
      controller.abort();
      expect(await outcome).toBe('completed without a list');
      await raw.waitForNoSockets(2000); // never without the abort; roomy for a loaded CI machine
    } finally {
      await raw.stop();
    }
  });

  it("a proxy's answer without a Status errors with its HTTP status and the Retry-After header", async () => {
    const raw = await RawServer.start((_req, res) => {
      res.writeHead(429, 'Too Many Requests', { 'content-type': 'text/plain', 'retry-after': '4' });
      res.end('slow down');
    });
    try {
      const error = await firstValueFrom(fromList(raw.kubeConfig(), pods)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WatchError);
      expect(error).toMatchObject({
        errorType: 'TOO_MANY_REQUESTS',
        statusCode: 429,
        retryAfterSeconds: 4,
        resourcePath: '/api/v1/pods',
      });
    } finally {
      await raw.stop();
    }
  });
});
