import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { watchResource } from '../src/watch.js';
import { WatchError } from '../src/WatchError.js';
import type { ClusterConnection, WatchEvent } from '../src/types.js';
import { FakeKubeApiServer } from '../src/testing/index.js';
import { pod } from '../src/testing/marbles/builders.js';
import { RawServer, collect, line, rawPod, streamChunks } from './support/rawServer.js';

const pods = { group: '', version: 'v1', plural: 'pods' };
const errorOf = (event: WatchEvent | undefined): WatchError => {
  if (event?.type !== 'ERROR')
    throw new Error(`expected an ERROR event, got ${JSON.stringify(event)}`);
  return event.error;
};

describe('watchResource against FakeKubeApiServer', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
  });
  afterAll(() => server.stop());

  it('yields ADDED, MODIFIED and DELETED with their resourceVersion, in order', async () => {
    server.create(pods, pod('before', '0', { metadata: { namespace: 'elsewhere' } }));
    const from = server.resourceVersion;
    const created = server.create(pods, pod('seq-a', '0', { metadata: { namespace: 'seq' } }));
    const updated = server.update(pods, { ...created, status: { phase: 'Succeeded' } });
    const gone = server.delete(pods, 'seq', 'seq-a')!;
    const events = await collect(
      watchResource(server.kubeConfig(), pods, {
        namespace: 'seq',
        resourceVersion: from,
        timeoutSeconds: 1,
      }),
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events.map((e) => (e.type === 'ERROR' ? '' : e.resourceVersion))).toEqual([
      created.metadata!.resourceVersion,
      updated.metadata!.resourceVersion,
      gone.metadata!.resourceVersion,
    ]);
    expect(events[1]).toMatchObject({ object: { status: { phase: 'Succeeded' } } });
  });

  it('sends the bearer token of the KubeConfig, and the sendInitialEvents end bookmark arrives as a BOOKMARK', async () => {
    server.create(pods, pod('bm-a', '0', { metadata: { namespace: 'bm' } }));
    const events = await collect(
      watchResource(server.kubeConfig(), pods, {
        namespace: 'bm',
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: true,
        timeoutSeconds: 1,
      }),
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    const mark = events[1] as Extract<
      WatchEvent,
      { type: 'BOOKMARK' | 'ADDED' | 'MODIFIED' | 'DELETED' }
    >;
    expect(mark.resourceVersion).toBe(server.resourceVersion);
    expect(mark.object.metadata?.annotations?.['k8s.io/initial-events-end']).toBe('true');
    const request = server.requests[server.requests.length - 1];
    expect(request.tokenValid).toBe(true);
  });

  it('turns an in-stream 410 into one ERROR (GONE, reason Expired) and ends with the server', async () => {
    server.create(pods, pod('old', '0', { metadata: { namespace: 'exp' } }));
    server.expireHistory();
    const events = await collect(
      watchResource(server.kubeConfig(), pods, { namespace: 'exp', resourceVersion: '1' }),
    );
    expect(events).toHaveLength(1);
    expect(errorOf(events[0])).toMatchObject({
      errorType: 'GONE',
      statusCode: 410,
      reason: 'Expired',
      resourcePath: '/api/v1/namespaces/exp/pods',
    });
  });

  it('maps a wrong token to one UNAUTHORIZED_ERROR and ends', async () => {
    const events = await collect(watchResource(server.kubeConfig({ token: 'wrong' }), pods));
    expect(events).toHaveLength(1);
    expect(errorOf(events[0])).toMatchObject({
      errorType: 'UNAUTHORIZED_ERROR',
      statusCode: 401,
      reason: 'Unauthorized',
    });
    expect(errorOf(events[0]).message).not.toContain('wrong');
  });

  it.each([
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [500, 'SYSTEM_ERROR'],
    [503, 'SYSTEM_ERROR'],
    [429, 'TOO_MANY_REQUESTS'],
    [410, 'GONE'],
    [400, 'BAD_REQUEST'],
    [409, 'CONFLICT'],
    [422, 'INVALID'],
    [418, 'UNKNOWN_ERROR'],
  ])(
    'maps HTTP %i to one %s ERROR with the Status reason and Retry-After',
    async (status, errorType) => {
      server.faults.fail(status, {
        retryAfterSeconds: 3,
        reason: 'Because',
        message: 'the server says no',
      });
      const events = await collect(watchResource(server.kubeConfig(), pods));
      expect(events).toHaveLength(1);
      const error = errorOf(events[0]);
      expect(error).toBeInstanceOf(WatchError);
      expect(error).toMatchObject({
        errorType,
        statusCode: status,
        reason: 'Because',
        retryAfterSeconds: 3,
        resourcePath: '/api/v1/pods',
      });
      expect(error.message).toContain('the server says no');
      expect(error.status).toMatchObject({ kind: 'Status', code: status });
    },
  );

  it('watches custom resources under /apis/{group}/{version}', async () => {
    const things = { group: 'example.com', version: 'v1', plural: 'customthings' };
    server.create(things, {
      apiVersion: 'example.com/v1',
      kind: 'CustomThing',
      metadata: { name: 'x', namespace: 'crd' },
      spec: { size: 3 },
    } as never);
    const events = await collect(
      watchResource(server.kubeConfig(), things, { namespace: 'crd', timeoutSeconds: 1 }),
    );
    expect(server.requests[server.requests.length - 1].path).toBe(
      '/apis/example.com/v1/namespaces/crd/customthings',
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { spec: { size: 3 } } });
    // a custom object stays a plain object, not a model class
    expect(Object.getPrototypeOf((events[0] as { object: object }).object)).toBe(Object.prototype);
  });

  it('stops after the first event when the signal aborts, and the server sees the close', async () => {
    for (let i = 0; i < 3; i++)
      server.create(pods, pod(`ab-${i}`, '0', { metadata: { namespace: 'ab' } }));
    await server.waitForConnections(0, 1000);
    const controller = new AbortController();
    const seen: string[] = [];
    const before = server.connectionLog.length;
    for await (const event of watchResource(server.kubeConfig(), pods, {
      namespace: 'ab',
      signal: controller.signal,
    })) {
      seen.push(event.type);
      controller.abort();
    }
    expect(seen).toEqual(['ADDED']);
    await server.waitForConnections(0, 1000);
    expect(server.connectionLog.slice(before).map((e) => e.event)).toEqual(['open', 'close']);
  });

  it('releases the connection when the consumer breaks out of an idle watch', async () => {
    server.create(pods, pod('br', '0', { metadata: { namespace: 'br' } }));
    for await (const event of watchResource(server.kubeConfig(), pods, { namespace: 'br' })) {
      expect(event.type).toBe('ADDED');
      break;
    }
    await server.waitForConnections(0, 1000);
  });

  it('speaks HTTPS with the CA of the KubeConfig, and client certificates authenticate', async () => {
    const tls = await FakeKubeApiServer.start({
      tls: true,
      clientCA: true,
      token: null,
      bookmarkIntervalMs: 0,
    });
    try {
      tls.create(pods, pod('secure', '0'));
      const events = await collect(
        watchResource(tls.kubeConfig({ user: 'cert' }), pods, { timeoutSeconds: 1 }),
      );
      expect(events.map((e) => e.type)).toEqual(['ADDED']);
      expect(tls.requests[0].clientCertValid).toBe(true);
    } finally {
      await tls.stop();
    }
  });

  it('refuses a server whose certificate the KubeConfig does not trust (TLS verification is on)', async () => {
    const tls = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    try {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: tls.url }],
        users: [{ name: 'u', token: 'test-token' }],
        contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
        currentContext: 'c',
      });
      const events = await collect(watchResource(kc, pods));
      expect(errorOf(events[0])).toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 0 });
      expect(tls.requests).toHaveLength(0);
    } finally {
      await tls.stop();
    }
  });
});

describe('watchResource requests', () => {
  let raw: RawServer;
  beforeAll(async () => {
    raw = await RawServer.start();
  });
  afterEach(() => {
    raw.requests.length = 0;
  });
  afterAll(() => raw.stop());

  it('sends watch=true first, then every option that is set, encoded', async () => {
    raw.handler = streamChunks([]);
    await collect(
      watchResource(raw.kubeConfig(), pods, {
        namespace: 'team-a',
        labelSelector: 'app=web&watch=false',
        fieldSelector: 'metadata.name=x',
        resourceVersion: '42',
        resourceVersionMatch: 'NotOlderThan',
        timeoutSeconds: 30,
        allowWatchBookmarks: true,
        sendInitialEvents: true,
      }),
    );
    const [request] = raw.requests;
    expect(request.path).toBe('/api/v1/namespaces/team-a/pods');
    expect([...request.query.keys()]).toEqual([
      'watch',
      'labelSelector',
      'fieldSelector',
      'resourceVersion',
      'resourceVersionMatch',
      'timeoutSeconds',
      'allowWatchBookmarks',
      'sendInitialEvents',
    ]);
    expect(request.query.getAll('watch')).toEqual(['true']);
    expect(request.query.get('labelSelector')).toBe('app=web&watch=false');
    expect(request.rawQuery).toContain('labelSelector=app%3Dweb%26watch%3Dfalse');
    expect(request.headers.authorization).toBe('Bearer raw-token');
  });

  it('sends nothing for options that are not set', async () => {
    raw.handler = streamChunks([]);
    await collect(watchResource(raw.kubeConfig(), pods, { allowWatchBookmarks: false }));
    expect(raw.requests[0].rawQuery).toBe('watch=true');
  });

  it.each([
    ['a namespace that climbs', { namespace: '../x' }, pods],
    ['a plural that carries a query', {}, { group: '', version: 'v1', plural: 'pods?watch=false' }],
    ['an invalid group', {}, { group: 'Apps/..', version: 'v1', plural: 'deployments' }],
    ['an invalid version', {}, { group: 'apps', version: '1', plural: 'deployments' }],
    ['a negative timeout', { timeoutSeconds: -1 }, pods],
    ['a fractional timeout', { timeoutSeconds: 1.5 }, pods],
    ['a maxLineBytes of zero', { maxLineBytes: 0 }, pods],
    ['a selector that is not a string', { labelSelector: { app: 'web' } as never }, pods],
    ['an unknown resourceVersionMatch', { resourceVersionMatch: 'Newest' as never }, pods],
  ])('answers %s with one BAD_REQUEST and sends no request', async (_what, options, resource) => {
    const events = await collect(watchResource(raw.kubeConfig(), resource, options));
    expect(events).toHaveLength(1);
    const error = errorOf(events[0]);
    expect(error).toMatchObject({ errorType: 'BAD_REQUEST', statusCode: 400 });
    expect(error.resourcePath).not.toMatch(/[?]/);
    expect(raw.requests).toHaveLength(0);
  });

  it('yields nothing and sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      await collect(watchResource(raw.kubeConfig(), pods, { signal: controller.signal })),
    ).toEqual([]);
    expect(raw.requests).toHaveLength(0);
  });

  it('yields one UNAUTHORIZED_ERROR that says why when credentials cannot be resolved, and sends nothing', async () => {
    const failing: ClusterConnection = {
      resolve: () => Promise.reject(new Error('token file /var/run/token is missing')),
    };
    const events = await collect(watchResource(failing, pods));
    expect(errorOf(events[0])).toMatchObject({ errorType: 'UNAUTHORIZED_ERROR', statusCode: 401 });
    expect(errorOf(events[0]).message).toContain('token file /var/run/token is missing');
    const empty = new KubeConfig();
    const none = await collect(watchResource(empty, pods));
    expect(errorOf(none[0]).message).toMatch(/no current cluster/);
    expect(raw.requests).toHaveLength(0);
  });

  it('resolves a ClusterConnection afresh for every request', async () => {
    raw.handler = streamChunks([]);
    let n = 0;
    const rotating: ClusterConnection = {
      resolve: async () => ({
        server: raw.url,
        headers: { authorization: `Bearer t${++n}` },
      }),
    };
    await collect(watchResource(rotating, pods));
    await collect(watchResource(rotating, pods));
    expect(raw.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
  });

  it('yields one SYSTEM_ERROR with status 0 when the server cannot be reached', async () => {
    const closed = await RawServer.start();
    const kc = closed.kubeConfig();
    await closed.stop();
    const events = await collect(watchResource(kc, pods));
    expect(events).toHaveLength(1);
    expect(errorOf(events[0])).toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 0 });
  });

  it('never follows a redirect', async () => {
    const other = await RawServer.start(streamChunks([line('ADDED', rawPod('stolen', '1'))]));
    raw.handler = (_req, res) => {
      res.writeHead(302, { location: `${other.url}/api/v1/pods?watch=true` });
      res.end();
    };
    const events = await collect(watchResource(raw.kubeConfig(), pods));
    await other.stop();
    expect(events).toHaveLength(1);
    expect(errorOf(events[0])).toMatchObject({ errorType: 'UNKNOWN_ERROR', statusCode: 302 });
    expect(other.requests).toHaveLength(0);
  });

  it('keeps the bookmark resourceVersion, and the real 410 payload gives GONE with reason and message', async () => {
    const gone =
      '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (8146471)","reason":"Gone","code":410}}\n';
    raw.handler = streamChunks([
      line('BOOKMARK', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '8146470' } }),
      gone,
      line('ADDED', rawPod('after', '8146472')),
    ]);
    const events = await collect(watchResource(raw.kubeConfig(), pods));
    expect(events.map((e) => e.type)).toEqual(['BOOKMARK', 'ERROR', 'ADDED']);
    expect(events[0]).toMatchObject({ resourceVersion: '8146470' });
    expect(errorOf(events[1])).toMatchObject({
      statusCode: 410,
      errorType: 'GONE',
      reason: 'Gone',
    });
    expect(errorOf(events[1]).message).toContain('too old resource version: 1 (8146471)');
  });

  it("a proxy's answer without a Status gives its HTTP status and the Retry-After header", async () => {
    raw.handler = (_req, res) => {
      res.writeHead(503, 'Service Unavailable', {
        'content-type': 'text/html',
        'retry-after': '7',
      });
      res.end('<html><body>upstream is restarting</body></html>');
    };
    const events = await collect(watchResource(raw.kubeConfig(), pods));
    expect(events).toHaveLength(1);
    expect(errorOf(events[0])).toMatchObject({
      errorType: 'SYSTEM_ERROR',
      statusCode: 503,
      retryAfterSeconds: 7,
      resourcePath: '/api/v1/pods',
    });
    expect(errorOf(events[0]).message).toContain('Service Unavailable');
  });

  it('an in-stream ERROR without a code is a 500 SYSTEM_ERROR', async () => {
    raw.handler = streamChunks([line('ERROR', { kind: 'Status', message: 'etcd went away' })]);
    const [event] = await collect(watchResource(raw.kubeConfig(), pods));
    expect(errorOf(event)).toMatchObject({ statusCode: 500, errorType: 'SYSTEM_ERROR' });
  });

  it('a GKE-style bare Status on HTTP 401 gives UNAUTHORIZED_ERROR', async () => {
    raw.handler = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
      );
    };
    const events = await collect(watchResource(raw.kubeConfig(), pods));
    expect(events).toHaveLength(1);
    expect(errorOf(events[0])).toMatchObject({
      errorType: 'UNAUTHORIZED_ERROR',
      statusCode: 401,
      reason: 'Unauthorized',
    });
  });

  it('logs and skips malformed and empty lines, and strict mode ends on the first with PARSE_ERROR', async () => {
    raw.handler = streamChunks([
      '\n',
      'not json\n',
      '\r\n',
      line('ADDED', rawPod('a', '1')),
      '{"type":"ADDED"}\n',
      line('MODIFIED', rawPod('a', '2')),
    ]);
    const logger = { warn: jest.fn<(m: string) => void>() };
    const events = await collect(watchResource(raw.kubeConfig(), pods, { logger }));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn.mock.calls[0][0]).toMatch(/not a JSON object/);
    const strict = await collect(watchResource(raw.kubeConfig(), pods, { strict: true, logger }));
    expect(strict).toHaveLength(1);
    expect(errorOf(strict[0])).toMatchObject({ errorType: 'PARSE_ERROR' });
  });
});
