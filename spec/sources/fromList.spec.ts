import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/sources/resources.js';
import { WatchError } from '../../src/WatchError.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
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

  it('restarts the whole list once when a continue token has expired', async () => {
    const before = listRequests().length;
    let expiredOnce = false;
    const kc = server.kubeConfig();
    // Expire the history between the first and the second page of the first attempt.
    const origin = fromList(kc, pods, { namespace: 'n1500', limit: 1000 });
    const timer = setInterval(() => {
      if (!expiredOnce && listRequests().length > before) {
        expiredOnce = true;
        server.expireHistory();
      }
    }, 0);
    const result = await lastValueFrom(origin).finally(() => clearInterval(timer));
    expect(result.items).toHaveLength(1500);
    const made = listRequests().slice(before);
    expect(made.map((r) => [r.status, Boolean(r.query.continue)])).toEqual([
      [200, false],
      [410, true],
      [200, false],
      [200, true],
    ]);
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
      await raw.waitForNoSockets(250);

      const controller = new AbortController();
      const outcome = lastValueFrom(
        fromList(raw.kubeConfig(), pods, { signal: controller.signal }),
        { defaultValue: 'completed without a list' },
      );
      await until(() => raw.requests.length === 2, 'the second list request');
      controller.abort();
      expect(await outcome).toBe('completed without a list');
      await raw.waitForNoSockets(250);
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
