// Custom resources through the server's HTTP API: the status and scale subresources and
// metadata.generation as kube-apiserver's customresource strategy keeps them, a CRD's versions
// serving the same objects, and the resource-type record a CRD makes (list types).
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { typesOfCrd } from '../../../src/testing/fakeKubeApiServer/crds.js';
import { get, request, watch } from './client.js';

const BASE = '/apis/stable.example.com/v1/namespaces/default';
const definition = {
  group: 'stable.example.com',
  version: 'v1',
  plural: 'crontabs',
  kind: 'CronTab',
};
const crontab = (spec: object, status?: object) => ({
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name: 'nightly' },
  spec,
  ...(status !== undefined && { status }),
});

describe('custom resources: subresources and generation', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  it('with a status subresource: object writes keep the stored status, /status writes change only status', async () => {
    const ref = server.defineResource({ ...definition, subresources: { status: true } });
    const created = await request(
      server,
      'POST',
      `${BASE}/crontabs`,
      crontab({ a: 1 }, { ok: true }),
    );
    expect(created.status).toBe(201);
    expect(created.json).not.toHaveProperty('status');
    expect(created.json.metadata.generation).toBe(1);

    const viaStatus = await request(server, 'PUT', `${BASE}/crontabs/nightly/status`, {
      ...crontab({ a: 'ignored' }, { phase: 'Ready' }),
      metadata: { name: 'nightly', labels: { ignored: 'yes' } },
    });
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.json).toMatchObject({ spec: { a: 1 }, status: { phase: 'Ready' } });
    expect(viaStatus.json.metadata).not.toHaveProperty('labels');
    expect(viaStatus.json.metadata.generation).toBe(1);

    const put = await request(
      server,
      'PUT',
      `${BASE}/crontabs/nightly`,
      crontab({ a: 2 }, { phase: 'Lost' }),
    );
    expect(put.json).toMatchObject({
      spec: { a: 2 },
      status: { phase: 'Ready' },
      metadata: { generation: 2 },
    });

    const labels = await request(
      server,
      'PATCH',
      `${BASE}/crontabs/nightly`,
      { metadata: { labels: { x: 'y' } } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(labels.json.metadata).toMatchObject({ labels: { x: 'y' }, generation: 2 });

    const patched = await request(
      server,
      'PATCH',
      `${BASE}/crontabs/nightly/status`,
      { status: { phase: 'Done' } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(patched.json).toMatchObject({
      spec: { a: 2 },
      status: { phase: 'Done' },
      metadata: { generation: 2 },
    });
    const got = await get(server, `${BASE}/crontabs/nightly/status`);
    expect(got.json).toEqual(server.get(ref, 'default', 'nightly'));

    const stale = await request(server, 'PUT', `${BASE}/crontabs/nightly/status`, {
      ...crontab({}, { phase: 'Stale' }),
      metadata: { name: 'nightly', resourceVersion: created.json.metadata.resourceVersion },
    });
    expect([stale.status, stale.json.reason]).toEqual([409, 'Conflict']);
    expect((await request(server, 'POST', `${BASE}/crontabs/nightly/status`, {})).status).toBe(405);
  });

  it('without a status subresource: status is an ordinary field, its changes move the generation, /status is 404', async () => {
    server.defineResource(definition);
    const created = await request(
      server,
      'POST',
      `${BASE}/crontabs`,
      crontab({ a: 1 }, { ok: true }),
    );
    expect(created.json).toMatchObject({ status: { ok: true }, metadata: { generation: 1 } });
    const put = await request(
      server,
      'PUT',
      `${BASE}/crontabs/nightly`,
      crontab({ a: 1 }, { ok: false }),
    );
    expect(put.json).toMatchObject({ status: { ok: false }, metadata: { generation: 2 } });
    const status = await request(
      server,
      'PUT',
      `${BASE}/crontabs/nightly/status`,
      crontab({ a: 1 }, {}),
    );
    expect([status.status, status.json.reason]).toEqual([404, 'NotFound']);
    expect((await get(server, `${BASE}/crontabs/nightly/scale`)).status).toBe(404);
  });

  it('the scale subresource maps a Scale to the CRD paths; discovery lists status and scale', async () => {
    server.defineResource({
      ...definition,
      subresources: {
        status: true,
        scale: {
          specReplicasPath: '.spec.size',
          statusReplicasPath: '.status.ready',
          labelSelectorPath: '.status.selector',
        },
      },
    });
    await request(server, 'POST', `${BASE}/crontabs`, crontab({ size: 2 }));
    await request(
      server,
      'PATCH',
      `${BASE}/crontabs/nightly/status`,
      { status: { ready: 1, selector: 'app=cron' } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    const scale = await get(server, `${BASE}/crontabs/nightly/scale`);
    expect(scale.json).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'nightly', namespace: 'default' },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=cron' },
    });
    const put = await request(server, 'PUT', `${BASE}/crontabs/nightly/scale`, {
      ...scale.json,
      spec: { replicas: 5 },
    });
    expect(put.json.spec.replicas).toBe(5);
    expect((await get(server, `${BASE}/crontabs/nightly`)).json).toMatchObject({
      spec: { size: 5 },
      metadata: { generation: 2 },
    });
    const discovery = await get(server, '/apis/stable.example.com/v1');
    expect(discovery.json.resources.map((r: any) => [r.name, r.kind])).toEqual([
      ['crontabs', 'CronTab'],
      ['crontabs/status', 'CronTab'],
      ['crontabs/scale', 'Scale'],
    ]);
  });

  it("a CRD's served versions serve the same objects, each with its apiVersion, at one resourceVersion", async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        scope: 'Namespaced',
        names: { plural: 'crontabs', kind: 'CronTab' },
        versions: ['v1', 'v1beta1'].map((name) => ({
          name,
          served: true,
          storage: name === 'v1',
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        })),
      },
    };
    expect(
      (
        await request(
          server,
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
          crd,
        )
      ).status,
    ).toBe(201);
    const w = watch(server, `${BASE}/crontabs`);
    await w.responded;
    const beta = '/apis/stable.example.com/v1beta1/namespaces/default/crontabs';
    const created = await request(server, 'POST', beta, {
      ...crontab({ a: 1 }),
      apiVersion: 'stable.example.com/v1beta1',
    });
    expect(created.json.apiVersion).toBe('stable.example.com/v1beta1');
    const [event] = await w.waitForEvents(1);
    expect(event).toMatchObject({
      type: 'ADDED',
      object: {
        apiVersion: 'stable.example.com/v1',
        spec: { a: 1 },
        metadata: { resourceVersion: created.json.metadata.resourceVersion },
      },
    });
    w.close();
    expect((await get(server, `${beta}/nightly`)).json.apiVersion).toBe(
      'stable.example.com/v1beta1',
    );
  });

  it("a CRD's schema list types are on the resource-type record (listTypes), by field path", () => {
    const items = (props: object) => ({ type: 'object', properties: props });
    const [type] = typesOfCrd({
      spec: {
        group: 'stable.example.com',
        scope: 'Namespaced',
        names: { plural: 'crontabs', kind: 'CronTab' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: items({
                spec: items({
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['port', 'protocol'],
                    items: items({
                      port: { type: 'integer' },
                      protocol: { type: 'string' },
                      hosts: {
                        type: 'array',
                        'x-kubernetes-list-type': 'set',
                        items: { type: 'string' },
                      },
                    }),
                  },
                  args: {
                    type: 'array',
                    'x-kubernetes-list-type': 'atomic',
                    items: { type: 'string' },
                  },
                  byZone: {
                    type: 'object',
                    additionalProperties: {
                      type: 'array',
                      'x-kubernetes-list-type': 'set',
                      items: { type: 'string' },
                    },
                  },
                }),
              }),
            },
          },
        ],
      },
    });
    expect(type.listTypes).toEqual({
      'spec.ports': { type: 'map', keys: ['port', 'protocol'] },
      'spec.ports[].hosts': { type: 'set' },
      'spec.args': { type: 'atomic' },
      'spec.byZone{}': { type: 'set' },
    });
    expect(type.subresources).toEqual({ status: true });
  });
});
