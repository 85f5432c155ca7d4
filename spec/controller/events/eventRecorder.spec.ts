import { afterEach, describe, expect, it } from '@jest/globals';
import { eventRecorder } from '../../../src/controller/events/eventRecorder.js';
import { FakeKubeApiServer } from '../../../src/testing/index.js';
import { RawServer } from '../../support/rawServer.js';
import { until } from '../../support/wait.js';

const eventsV1 = { group: 'events.k8s.io', version: 'v1', plural: 'events', kind: 'Event' };
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '7' },
};
const config = {
  reportingController: 'example.com/web',
  reportingInstance: 'web-0',
  seriesUpdateIntervalMs: 100,
};

let server: FakeKubeApiServer | undefined;
let raw: RawServer | undefined;
afterEach(async () => {
  await server?.stop();
  await raw?.stop();
  server = raw = undefined;
});

describe('eventRecorder against an API server', () => {
  it('writes 60 identical events as one events.k8s.io/v1 Event with series count 60, in at most 3 writes', async () => {
    server = await FakeKubeApiServer.start();
    const recorder = eventRecorder(server.kubeConfig(), config);
    for (let i = 0; i < 60; i++)
      recorder.record(pod, { type: 'Warning', reason: 'BackOff', action: 'Start', note: 'again' });
    await until(
      () => (server!.objects<any>(eventsV1, 'shop')[0]?.series?.count ?? 0) === 60,
      () => JSON.stringify(server!.objects(eventsV1, 'shop')),
      5_000,
    );
    const stored = server.objects<any>(eventsV1, 'shop');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      reason: 'BackOff',
      type: 'Warning',
      action: 'Start',
      note: 'again',
      reportingController: 'example.com/web',
      reportingInstance: 'web-0',
      regarding: { kind: 'Pod', name: 'web-1', namespace: 'shop', uid: 'u-1' },
      series: { count: 60 },
    });
    expect(stored[0].eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const writes = server.requests.filter((r) => r.path.includes('/events'));
    expect(writes.length).toBeLessThanOrEqual(3);
    recorder.close();
  });

  it('writes core/v1 Events where events.k8s.io/v1 is not served', async () => {
    const bodies: unknown[] = [];
    raw = await RawServer.start((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        if (req.url?.startsWith('/apis/events.k8s.io')) {
          res.writeHead(404, { 'content-type': 'application/json' });
          return res.end(
            '{"kind":"Status","code":404,"reason":"NotFound","message":"404 page not found"}',
          );
        }
        bodies.push(JSON.parse(text));
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
    const recorder = eventRecorder(raw.kubeConfig(), config);
    recorder.record(pod, { type: 'Normal', reason: 'Created', action: 'Create', note: 'hello' });
    await until(
      () => bodies.length === 1,
      () => 'no core/v1 write',
      5_000,
    );
    expect(raw.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /apis/events.k8s.io/v1/namespaces/shop/events',
      'GET /apis/events.k8s.io/v1',
      'POST /api/v1/namespaces/shop/events',
    ]);
    expect(bodies[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { name: 'web-1', uid: 'u-1' },
      message: 'hello',
      reason: 'Created',
      source: { component: 'example.com/web' },
      count: 1,
    });
    // found once: the next Event goes to core/v1 directly
    recorder.record(pod, { type: 'Normal', reason: 'Created', action: 'Create', note: 'again' });
    await until(
      () => bodies.length === 2,
      () => 'no second write',
      5_000,
    );
    expect(raw.requests).toHaveLength(4);
    recorder.close();
  });

  it('returns at once when the server stalls, and counts the writes it abandons', async () => {
    raw = await RawServer.start(() => undefined); // never answers
    const drops: string[] = [];
    const recorder = eventRecorder(raw.kubeConfig(), {
      ...config,
      writeTimeoutMs: 200,
      onDrop: (why) => drops.push(why),
    });
    const started = performance.now();
    for (let i = 0; i < 10; i++)
      recorder.record(pod, { type: 'Normal', reason: 'Tick', action: 'Tick', note: `n${i}` });
    expect(performance.now() - started).toBeLessThan(50);
    await until(
      () => drops.length === 10,
      () => `${drops.length} drops`,
      5_000,
    );
    expect(new Set(drops)).toEqual(new Set(['write-failed']));
    recorder.close();
  });

  it('refuses a configuration without who reports, at call time', () => {
    expect(() => eventRecorder({} as never, { ...config, reportingController: '' })).toThrow(
      TypeError,
    );
    expect(() =>
      eventRecorder({} as never, { ...config, reportingInstance: 'x'.repeat(129) }),
    ).toThrow(/reportingInstance/);
    expect(() => eventRecorder({} as never, null as never)).toThrow(TypeError);
  });
});
