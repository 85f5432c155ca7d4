import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { pods } from '../../../src/objects/resources.js';
import type { KubernetesObject, ResourceRef } from '../../../src/types.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { FakeKubeApiError } from '../../../src/testing/fakeKubeApiServer/ObjectStore.js';
import { History } from '../../../src/testing/fakeKubeApiServer/History.js';
import { kindForPlural } from '../../../src/testing/fakeKubeApiServer/kindForPlural.js';
import { pod } from '../../../src/testing/marbles/builders.js';

const widgets: ResourceRef = { group: 'example.com', version: 'v1', plural: 'widgets' };

describe('FakeKubeApiServer object API', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterAll(() => server.stop());

  it('create assigns increasing global versions, keeps given uid, fills kind and timestamps', () => {
    const a = server.create(pods, pod('a', 'ignored'));
    const w = server.create(widgets, { metadata: { name: 'w1' } });
    expect(a.metadata?.resourceVersion).toBe('1');
    expect(a.metadata?.uid).toBe('uid-a');
    expect(String(a.metadata?.creationTimestamp)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(w).toMatchObject({
      kind: 'Widget',
      apiVersion: 'example.com/v1',
      metadata: { resourceVersion: '2' },
    });
    expect(w.metadata?.namespace).toBeUndefined();
    expect(w.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.resourceVersion).toBe('2');
  });

  it('create of an existing object throws 409; update of a missing one 404; no name 422', () => {
    const codes = (f: () => unknown): number | undefined => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(FakeKubeApiError);
        return (e as FakeKubeApiError).code;
      }
      return undefined;
    };
    const before = server.resourceVersion;
    expect(codes(() => server.create(pods, pod('a', '1')))).toBe(409);
    expect(codes(() => server.update(pods, pod('zz', '1')))).toBe(404);
    expect(codes(() => server.create(pods, { metadata: {} } as V1Pod))).toBe(422);
    expect(server.resourceVersion).toBe(before);
  });

  it('update bumps the version and keeps uid and creationTimestamp; delete returns the object at a new version', () => {
    const created = server.create(pods, pod('u', '0', { metadata: { uid: undefined } }));
    const updated = server.update(pods, {
      ...pod('u', '0'),
      metadata: { name: 'u', namespace: 'default' },
    });
    expect(Number(updated.metadata?.resourceVersion)).toBe(
      Number(created.metadata?.resourceVersion) + 1,
    );
    expect(updated.metadata?.uid).toBe(created.metadata?.uid);
    expect(updated.metadata?.creationTimestamp).toBe(created.metadata?.creationTimestamp);
    const deleted = server.delete(pods, 'default', 'u');
    expect(Number(deleted?.metadata?.resourceVersion)).toBe(
      Number(updated.metadata?.resourceVersion) + 1,
    );
    expect(server.delete(pods, 'default', 'u')).toBeUndefined();
    expect(server.get(pods, 'default', 'u')).toBeUndefined();
  });

  it('get and objects return copies, objects filters by namespace', () => {
    server.create(pods, pod('p', '0', { metadata: { namespace: 'prod' } }));
    const got = server.get(pods, 'prod', 'p')!;
    got.metadata!.name = 'changed';
    expect(server.get(pods, 'prod', 'p')?.metadata?.name).toBe('p');
    expect(server.objects(pods, 'prod').map((o: KubernetesObject) => o.metadata?.name)).toEqual([
      'p',
    ]);
    expect(server.objects(pods).map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)).toEqual(
      ['default/a', 'prod/p'],
    );
    const input = pod('q', '0');
    server.create(pods, input);
    input.metadata!.labels = { late: 'yes' };
    expect(server.get(pods, 'default', 'q')?.metadata?.labels).toBeUndefined();
  });
});

describe('history ring and kinds', () => {
  it('keeps the last N items and finds those after a version', () => {
    const h = new History<{ rv: number }>(3);
    const evicted = [1, 2, 3, 4, 5].map((rv) => h.push({ rv })?.rv);
    expect(evicted).toEqual([undefined, undefined, undefined, 1, 2]);
    expect(h.since(0).map((i) => i.rv)).toEqual([3, 4, 5]);
    expect(h.since(3).map((i) => i.rv)).toEqual([4, 5]);
    expect(h.since(5)).toEqual([]);
    h.clear();
    expect(h.since(0)).toEqual([]);
    expect(new History<{ rv: number }>(0).push({ rv: 9 })).toEqual({ rv: 9 });
  });

  it('names kinds from plurals', () => {
    expect(
      ['pods', 'ingresses', 'networkpolicies', 'widgets', 'policies', 'boxes', 'foos'].map(
        kindForPlural,
      ),
    ).toEqual(['Pod', 'Ingress', 'NetworkPolicy', 'Widget', 'Policy', 'Box', 'Foo']);
  });
});

describe('FakeKubeApiServer records', () => {
  it('keep at most recordLimit requests and connection entries, dropping the oldest', async () => {
    const server = await FakeKubeApiServer.start({
      recordLimit: 10,
      keepAlive: false,
      bookmarkIntervalMs: 0,
    });
    try {
      for (let i = 0; i < 25; i++) {
        const res = await fetch(`${server.url}/api/v1/pods?limit=${i + 1}`, {
          headers: { authorization: 'Bearer test-token' },
        });
        await res.text();
      }
      await server.waitForConnections(0);
      expect(server.requests.length).toBeLessThanOrEqual(10);
      expect(server.requests.at(-1)?.query.limit).toBe('25');
      expect(server.connectionLog.length).toBeLessThanOrEqual(10);
      // waitForRequests counts every request, not the ones still kept.
      await server.waitForRequests(25, 500);
      await expect(server.waitForRequests(26, 50)).rejects.toThrow(/25 requests, waiting for 26/);
    } finally {
      await server.stop();
    }
  });
});
