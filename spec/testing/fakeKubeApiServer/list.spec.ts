import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { deployments, pods, resource } from '../../../src/objects/resources.js';
import type { KubernetesObject } from '../../../src/types.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../../src/testing/marbles/builders.js';
import { get } from './client.js';

/** Follows continue tokens; returns every page. */
async function listAll(server: FakeKubeApiServer, path: string, limit: number): Promise<any[]> {
  const pages: any[] = [];
  let token: string | undefined;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const cont = token === undefined ? '' : `&continue=${encodeURIComponent(token)}`;
    const reply = await get(server, `${path}${sep}limit=${limit}${cont}`);
    expect(reply.status).toBe(200);
    pages.push(reply.json);
    token = reply.json.metadata.continue;
  } while (token !== undefined);
  return pages;
}

describe('FakeKubeApiServer list', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  it('answers a <Kind>List with the current resourceVersion, items sorted by namespace/name', async () => {
    server.create(pods, pod('b', '0', { metadata: { namespace: 'prod' } }));
    server.create(pods, pod('z', '0'));
    server.create(pods, pod('a', '0', { metadata: { namespace: 'prod' } }));
    server.create(pods, pod('a', '0'));
    const reply = await get(server, '/api/v1/pods');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.json).toMatchObject({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '4' },
    });
    expect(reply.json.metadata.continue).toBeUndefined();
    expect(
      reply.json.items.map((p: V1Pod) => `${p.metadata?.namespace}/${p.metadata?.name}`),
    ).toEqual(['default/a', 'default/z', 'prod/a', 'prod/b']);
  });

  it('lists one namespace under /namespaces/{ns}, and groups under /apis', async () => {
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0', { metadata: { namespace: 'prod' } }));
    server.create(deployments, deployment('web', '0'));
    const ns = await get(server, '/api/v1/namespaces/prod/pods');
    expect(ns.json.items.map((p: V1Pod) => p.metadata?.name)).toEqual(['b']);
    const deps = await get(server, '/apis/apps/v1/namespaces/default/deployments');
    expect(deps.json).toMatchObject({ kind: 'DeploymentList', apiVersion: 'apps/v1' });
    expect(deps.json.items).toHaveLength(1);
    expect((await get(server, '/apis/example.com/v1alpha1/widgets')).json).toMatchObject({
      kind: 'WidgetList',
      apiVersion: 'example.com/v1alpha1',
      items: [],
    });
  });

  it('names a custom resource List after the kind its first object gives', async () => {
    const crontabs = resource('stable.example.com/v1', 'crontabs');
    server.create(crontabs, {
      kind: 'CronTab',
      metadata: { name: 'nightly', namespace: 'default' },
    });
    server.create(crontabs, { metadata: { name: 'weekly', namespace: 'default' } });
    const reply = await get(server, '/apis/stable.example.com/v1/crontabs');
    expect(reply.json).toMatchObject({ kind: 'CronTabList', apiVersion: 'stable.example.com/v1' });
    expect(reply.json.items.map((o: KubernetesObject) => o.kind)).toEqual(['CronTab', 'CronTab']);
  });

  it('pages a selected list with continue tokens and no remainingItemCount', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      const labels = { keep: name === 'b' ? 'no' : 'yes' };
      server.create(pods, pod(name, '0', { metadata: { labels } }));
    }
    const pages = await listAll(server, '/api/v1/pods?labelSelector=keep%3Dyes', 2);
    expect(pages.map((p) => p.items.map((i: V1Pod) => i.metadata?.name))).toEqual([
      ['a', 'c'],
      ['d', 'e'],
    ]);
    expect(pages[0].metadata.continue).toEqual(expect.any(String));
    expect(pages.map((p) => p.metadata.remainingItemCount)).toEqual([undefined, undefined]);
  });

  it.each([1, 2, 1500])('pages %i objects with limit 500 and remainingItemCount', async (n) => {
    for (let i = 0; i < n; i++) server.create(pods, pod(`p-${String(i).padStart(4, '0')}`, '0'));
    const pages = await listAll(server, '/api/v1/pods', 500);
    expect(pages).toHaveLength(Math.ceil(n / 500));
    const names = pages.flatMap((p) => p.items.map((i: V1Pod) => i.metadata?.name));
    expect(names).toHaveLength(n);
    expect(new Set(names).size).toBe(n);
    expect(names).toEqual([...names].sort());
    if (n === 1500) {
      expect(pages.map((p) => p.metadata.remainingItemCount)).toEqual([1000, 500, undefined]);
    }
    for (const p of pages) expect(p.metadata.resourceVersion).toBe(String(n));
  });

  it('serves every page from the snapshot of the first one', async () => {
    for (const name of ['a', 'b', 'c', 'd']) server.create(pods, pod(name, '0'));
    const first = await get(server, '/api/v1/pods?limit=2');
    expect(first.json.items.map((p: V1Pod) => p.metadata?.name)).toEqual(['a', 'b']);
    server.delete(pods, 'default', 'c');
    server.update(pods, pod('d', '0', { status: { phase: 'Failed' } }));
    server.create(pods, pod('e', '0'));
    const token = encodeURIComponent(first.json.metadata.continue);
    const second = await get(server, `/api/v1/pods?limit=2&continue=${token}`);
    expect(second.json.metadata.resourceVersion).toBe('4');
    expect(second.json.items.map((p: V1Pod) => [p.metadata?.name, p.status?.phase])).toEqual([
      ['c', 'Running'],
      ['d', 'Running'],
    ]);
    expect(second.json.metadata.continue).toBeUndefined();
  });

  it('answers 410 Expired for a continue token older than the history', async () => {
    for (const name of ['a', 'b', 'c']) server.create(pods, pod(name, '0'));
    const first = await get(server, '/api/v1/pods?limit=1');
    server.expireHistory();
    const token = encodeURIComponent(first.json.metadata.continue);
    const reply = await get(server, `/api/v1/pods?limit=1&continue=${token}`);
    expect(reply.status).toBe(410);
    expect(reply.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
    });
  });

  it('answers 400 for a continue token that is not one, or with a resourceVersion', async () => {
    expect((await get(server, '/api/v1/pods?continue=garbage')).status).toBe(400);
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0'));
    const first = await get(server, '/api/v1/pods?limit=1');
    const token = encodeURIComponent(first.json.metadata.continue);
    const reply = await get(server, `/api/v1/pods?limit=1&continue=${token}&resourceVersion=2`);
    expect(reply.status).toBe(400);
    expect(reply.json.message).toBe(
      'specifying resource version is not allowed when using continue',
    );
  });

  it('serves resourceVersionMatch=Exact from the history, 410 when older', async () => {
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0'));
    server.update(pods, pod('a', '0', { metadata: { labels: { v: '2' } } }));
    server.delete(pods, 'default', 'b');
    const at2 = await get(server, '/api/v1/pods?resourceVersion=2&resourceVersionMatch=Exact');
    expect(at2.json.metadata.resourceVersion).toBe('2');
    expect(
      at2.json.items.map((p: V1Pod) => [p.metadata?.name, p.metadata?.resourceVersion]),
    ).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    const notOlder = await get(
      server,
      '/api/v1/pods?resourceVersion=2&resourceVersionMatch=NotOlderThan',
    );
    expect(notOlder.json.metadata.resourceVersion).toBe('4');
    expect(notOlder.json.items.map((p: V1Pod) => p.metadata?.name)).toEqual(['a']);
    server.expireHistory();
    const gone = await get(server, '/api/v1/pods?resourceVersion=2&resourceVersionMatch=Exact');
    expect(gone.status).toBe(410);
    expect(gone.json).toMatchObject({
      reason: 'Expired',
      message: 'too old resource version: 2 (5)',
    });
  });

  it('answers 504 for a resourceVersion from the future and 400 for bad options', async () => {
    const future = await get(server, '/api/v1/pods?resourceVersion=99');
    expect(future.status).toBe(504);
    expect(future.json).toMatchObject({ reason: 'Timeout', code: 504 });
    for (const query of [
      'resourceVersion=abc',
      'resourceVersionMatch=Exact',
      'resourceVersion=0&resourceVersionMatch=Exact',
      'resourceVersion=1&resourceVersionMatch=Newest',
      'sendInitialEvents=true',
      'limit=-1',
    ]) {
      const reply = await get(server, `/api/v1/pods?${query}`);
      expect([query, reply.status, reply.json.reason]).toEqual([query, 400, 'BadRequest']);
    }
  });

  it('gets one object by path, 504 for a version from the future, 404 Status when missing', async () => {
    server.create(pods, pod('a', '0'));
    const found = await get(server, '/api/v1/namespaces/default/pods/a');
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({
      kind: 'Pod',
      metadata: { name: 'a', resourceVersion: '1' },
    });
    const future = await get(server, '/api/v1/namespaces/default/pods/a?resourceVersion=9');
    expect([future.status, future.json.reason]).toEqual([504, 'Timeout']);
    const missing = await get(server, '/api/v1/namespaces/default/pods/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'pods' },
      code: 404,
    });
  });
});
