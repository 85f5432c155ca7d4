import { afterEach, describe, expect, it } from '@jest/globals';
import { configmaps, deployments, pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../../src/testing/marbles/builders.js';
import { until } from '../../support/wait.js';
import { get, request, watch } from './client.js';
import { connect, H2Stream } from './h2client.js';

const PODS = '/api/v1/namespaces/default/pods';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const refusal = (r: { status: number; json: any }): unknown[] => [
  r.status,
  r.json?.kind,
  r.json?.reason,
  r.json?.code,
];
const newPod = (name: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'web' }, ...extra },
  spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
});

describe('FakeKubeApiServer writes over HTTP', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('POST creates with uid, creationTimestamp, resourceVersion and generation; the watch sees it', async () => {
    server = await FakeKubeApiServer.start();
    const w = watch(server, PODS);
    await w.responded;
    const r = await request(server, 'POST', PODS, newPod('web-1', { uid: 'mine' }));
    expect(r.status).toBe(201);
    expect(r.json.metadata).toMatchObject({
      name: 'web-1',
      namespace: 'default',
      resourceVersion: '1',
      generation: 1,
    });
    expect(r.json.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    expect(r.json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(server.get(pods, 'default', 'web-1')).toEqual(r.json);
    const [event] = await w.waitForEvents(1);
    expect(event).toEqual({ type: 'ADDED', object: r.json });
    w.close();
    const cm = await request(server, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'c' },
      data: { a: '1' },
    });
    expect(cm.status).toBe(201);
    expect(cm.json).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(cm.json.metadata.generation).toBeUndefined();
    const ns = await request(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'prod' } });
    expect(ns.status).toBe(201);
    expect(ns.json.metadata.namespace).toBeUndefined();
  });

  it('POST with generateName picks a free name', async () => {
    server = await FakeKubeApiServer.start();
    const body = { metadata: { generateName: 'job-' }, spec: { containers: [] } };
    const [a, b] = await Promise.all([
      request(server, 'POST', PODS, body),
      request(server, 'POST', PODS, body),
    ]);
    expect(a.json.metadata.name).toMatch(/^job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(b.json.metadata.name).not.toBe(a.json.metadata.name);
    expect(server.objects(pods)).toHaveLength(2);
  });

  it('POST refusals answer a Status: exists, invalid, mismatched, unreadable, too large', async () => {
    server = await FakeKubeApiServer.start();
    await request(server, 'POST', PODS, newPod('a'));
    const cases: Array<[unknown, string, unknown[]]> = [
      [newPod('a'), PODS, [409, 'Status', 'AlreadyExists', 409]],
      [{ metadata: {} }, PODS, [422, 'Status', 'Invalid', 422]],
      [newPod('Bad_Name'), PODS, [422, 'Status', 'Invalid', 422]],
      [newPod('b', { namespace: 'prod' }), PODS, [400, 'Status', 'BadRequest', 400]],
      [
        { ...(newPod('b') as object), apiVersion: 'apps/v1' },
        PODS,
        [400, 'Status', 'BadRequest', 400],
      ],
      [{ ...(newPod('b') as object), kind: 'Service' }, PODS, [400, 'Status', 'BadRequest', 400]],
      ['{"metadata":', PODS, [400, 'Status', 'BadRequest', 400]],
      ['[1,2]', PODS, [400, 'Status', 'BadRequest', 400]],
      [newPod('b'), `${PODS}/b`, [405, 'Status', 'MethodNotAllowed', 405]],
      [newPod('b'), '/api/v1/pods', [404, 'Status', 'NotFound', 404]],
      [
        { metadata: { name: 'x' } },
        '/api/v1/namespaces/default/namespaces',
        [404, 'Status', 'NotFound', 404],
      ],
      [
        { metadata: { name: 'x', annotations: { big: 'x'.repeat(3_200_000) } } },
        PODS,
        [413, 'Status', 'RequestEntityTooLarge', 413],
      ],
    ];
    for (const [body, path, expected] of cases) {
      const r = await request(server, 'POST', path, body);
      expect([JSON.stringify(body).slice(0, 60), ...refusal(r)]).toEqual([
        JSON.stringify(body).slice(0, 60),
        ...expected,
      ]);
    }
    expect(server.objects(pods).map((p) => p.metadata?.name)).toEqual(['a']);
    expect((await get(server, PODS, { token: 'wrong', method: 'POST' })).status).toBe(401);
  });

  it('an update that changes nothing stores nothing: same resourceVersion, no watch event', async () => {
    server = await FakeKubeApiServer.start();
    const created = (await request(server, 'POST', DEPLOYS, deployment('web', ''))).json;
    const same = await request(server, 'PUT', `${DEPLOYS}/web`, created);
    expect([same.status, same.json.metadata.resourceVersion]).toEqual([
      200,
      created.metadata.resourceVersion,
    ]);
    const emptyPatch = await request(
      server,
      'PATCH',
      `${DEPLOYS}/web`,
      {},
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(emptyPatch.json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    // the next real change is the first event after the create
    const w = watch(server, `${DEPLOYS}?resourceVersion=${created.metadata.resourceVersion}`);
    const scaled = structuredClone(created);
    scaled.spec.replicas = 5;
    await request(server, 'PUT', `${DEPLOYS}/web`, scaled);
    await until(
      () => w.events.length >= 1,
      () => 'no event',
    );
    expect(w.events.map((e: any) => [e.type, e.object.spec.replicas])).toEqual([['MODIFIED', 5]]);
    w.close();
  });

  it('PUT replaces: 409 on a stale resourceVersion, uid and creationTimestamp kept', async () => {
    server = await FakeKubeApiServer.start();
    const created = (await request(server, 'POST', DEPLOYS, deployment('web', ''))).json;
    const w = watch(server, `${DEPLOYS}?resourceVersion=${created.metadata.resourceVersion}`);
    const scaled = structuredClone(created);
    scaled.spec.replicas = 3;
    scaled.metadata.creationTimestamp = '2000-01-01T00:00:00Z';
    const put = await request(server, 'PUT', `${DEPLOYS}/web`, scaled);
    expect(put.status).toBe(200);
    expect(put.json.metadata).toMatchObject({
      resourceVersion: '2',
      generation: 2,
      uid: created.metadata.uid,
      creationTimestamp: created.metadata.creationTimestamp,
    });
    const stale = await request(server, 'PUT', `${DEPLOYS}/web`, scaled);
    expect(refusal(stale)).toEqual([409, 'Status', 'Conflict', 409]);
    expect(stale.json.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(stale.json.details).toEqual({ name: 'web', kind: 'deployments' });
    const labelled = structuredClone(put.json);
    labelled.metadata.labels = { tier: 'front' };
    labelled.status = { replicas: 3 };
    delete labelled.metadata.resourceVersion;
    const unconditional = await request(server, 'PUT', `${DEPLOYS}/web`, labelled);
    expect(unconditional.json.metadata).toMatchObject({ resourceVersion: '3', generation: 2 });
    const events = await w.waitForEvents(2);
    expect(events.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`)).toEqual([
      'MODIFIED 2',
      'MODIFIED 3',
    ]);
    w.close();
    const wrongUid = { ...labelled, metadata: { ...labelled.metadata, uid: 'other' } };
    expect(refusal(await request(server, 'PUT', `${DEPLOYS}/web`, wrongUid))).toEqual([
      409,
      'Status',
      'Conflict',
      409,
    ]);
    expect(refusal(await request(server, 'PUT', `${DEPLOYS}/other`, labelled))).toEqual([
      400,
      'Status',
      'BadRequest',
      400,
    ]);
    const missing = { ...labelled, metadata: { name: 'gone' } };
    expect(refusal(await request(server, 'PUT', `${DEPLOYS}/gone`, missing))).toEqual([
      404,
      'Status',
      'NotFound',
      404,
    ]);
    expect(refusal(await request(server, 'PUT', DEPLOYS, labelled))).toEqual([
      405,
      'Status',
      'MethodNotAllowed',
      405,
    ]);
  });

  it('DELETE: a pod answers the pod, other kinds a Success Status; watchers get DELETED', async () => {
    server = await FakeKubeApiServer.start();
    server.create(pods, pod('a', ''));
    const d = server.create(deployments, deployment('web', ''));
    const w = watch(server, `${PODS}?resourceVersion=2`);
    const gone = await request(server, 'DELETE', `${PODS}/a`);
    expect(gone.status).toBe(200);
    expect(gone.json).toMatchObject({ kind: 'Pod', metadata: { name: 'a', resourceVersion: '3' } });
    const [event] = await w.waitForEvents(1);
    expect(event.type).toBe('DELETED');
    w.close();
    const status = await request(server, 'DELETE', `${DEPLOYS}/web`, {
      kind: 'DeleteOptions',
      propagationPolicy: 'Background',
    });
    expect(status.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'web', group: 'apps', kind: 'deployments', uid: d.metadata?.uid },
    });
    expect(refusal(await request(server, 'DELETE', `${PODS}/a`))).toEqual([
      404,
      'Status',
      'NotFound',
      404,
    ]);
    server.create(pods, pod('b', ''));
    const pre = await request(server, 'DELETE', `${PODS}/b`, { preconditions: { uid: 'nope' } });
    expect(refusal(pre)).toEqual([409, 'Status', 'Conflict', 409]);
    expect(server.get(pods, 'default', 'b')).toBeDefined();
  });

  it('DELETE of a collection removes what the selectors match and answers their list', async () => {
    server = await FakeKubeApiServer.start();
    for (const [name, app, ns] of [
      ['a', 'web', 'default'],
      ['b', 'db', 'default'],
      ['c', 'web', 'default'],
      ['d', 'web', 'prod'],
    ]) {
      server.create(pods, pod(name, '', { metadata: { namespace: ns, labels: { app } } }));
    }
    const r = await request(server, 'DELETE', `${PODS}?labelSelector=app%3Dweb`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('PodList');
    expect(r.json.items.map((p: any) => p.metadata.name)).toEqual(['a', 'c']);
    expect(server.objects(pods).map((p) => p.metadata?.name)).toEqual(['b', 'd']);
    expect(refusal(await request(server, 'DELETE', `${PODS}?labelSelector=%3D%3D`))).toEqual([
      400,
      'Status',
      'BadRequest',
      400,
    ]);
  });

  it('the scale subresource of deployments: GET, PATCH and PUT (what kubectl scale uses)', async () => {
    server = await FakeKubeApiServer.start();
    server.create(deployments, deployment('web', '', { status: { replicas: 1 } }));
    const scale = await get(server, `${DEPLOYS}/web/scale`);
    expect(scale.json).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'default', resourceVersion: '1' },
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=web' },
    });
    const patched = await request(
      server,
      'PATCH',
      `${DEPLOYS}/web/scale`,
      { spec: { replicas: 3 } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(patched.json).toMatchObject({
      spec: { replicas: 3 },
      metadata: { resourceVersion: '2' },
    });
    expect(server.get(deployments, 'default', 'web')?.spec?.replicas).toBe(3);
    const stale = await request(server, 'PUT', `${DEPLOYS}/web/scale`, scale.json);
    expect(refusal(stale)).toEqual([409, 'Status', 'Conflict', 409]);
    const negative = { ...patched.json, spec: { replicas: -1 } };
    expect(refusal(await request(server, 'PUT', `${DEPLOYS}/web/scale`, negative))).toEqual([
      422,
      'Status',
      'Invalid',
      422,
    ]);
    const put = await request(server, 'PUT', `${DEPLOYS}/web/scale`, {
      ...patched.json,
      spec: { replicas: 0 },
    });
    expect(put.json.spec.replicas).toBe(0);
    expect(refusal(await get(server, `${DEPLOYS}/nope/scale`))).toEqual([
      404,
      'Status',
      'NotFound',
      404,
    ]);
    expect(refusal(await request(server, 'DELETE', `${DEPLOYS}/web/scale`))).toEqual([
      405,
      'Status',
      'MethodNotAllowed',
      405,
    ]);
  });

  it('dryRun=All answers what would be written and writes nothing', async () => {
    server = await FakeKubeApiServer.start();
    const dry = await request(server, 'POST', `${PODS}?dryRun=All`, newPod('a'));
    expect(dry.status).toBe(201);
    expect(dry.json.metadata.name).toBe('a');
    server.create(configmaps, { metadata: { name: 'c', namespace: 'default' }, data: {} });
    await request(server, 'DELETE', '/api/v1/namespaces/default/configmaps/c?dryRun=All');
    await request(
      server,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/c?dryRun=All',
      { data: { a: '1' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(server.resourceVersion).toBe('1');
    expect(server.objects(pods)).toEqual([]);
    // The handler validates CreateOptions before the body: 422, as kube-apiserver answers.
    const some = await request(server, 'POST', `${PODS}?dryRun=Some`, newPod('a'));
    expect(refusal(some)).toEqual([422, 'Status', 'Invalid', 422]);
    expect(some.json.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
    );
  });

  it('every write is seen by a watch, in order, over HTTP/2 too', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const session = await connect(server);
    try {
      const w = new H2Stream(session, `${PODS}?watch=true`);
      await w.responded;
      const merge = { 'content-type': 'application/merge-patch+json' };
      const writes = [
        { method: 'POST', path: PODS, body: newPod('a') },
        {
          method: 'PATCH',
          path: `${PODS}/a`,
          body: { metadata: { labels: { x: 'y' } } },
          headers: merge,
        },
        { method: 'DELETE', path: `${PODS}/a` },
      ];
      const statuses: number[] = [];
      for (const { path, ...opts } of writes) {
        const s = new H2Stream(session, path, opts);
        await s.closed;
        statuses.push(s.status);
      }
      expect(statuses).toEqual([201, 200, 200]);
      await until(() => w.events.length === 3, 'three events');
      expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(server.requests.every((r) => r.httpVersion === '2.0')).toBe(true);
    } finally {
      session.destroy();
    }
  });
});
