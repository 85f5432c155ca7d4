// How server-side apply merges and owns lists, as kube-apiserver 1.32 does: list-maps by their
// keys (containers by name, ports by containerPort and protocol, a CRD's list-map-keys), sets,
// and atomic lists owned whole.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { CRDS } from '../../../../src/testing/fakeKubeApiServer/ResourceTypes.js';
import { apply, DEPLOYMENTS, owners } from './applyClient.js';

const WEB = `${DEPLOYMENTS}/web`;

/** A Deployment configuration with these containers. */
const withContainers = (containers: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    ...extra,
    template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
  },
});

describe('server-side apply: lists', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  it('apply creates the object (201); fieldsV1 has list items by key, "." for an item with fields, an atomic selector', async () => {
    const config = withContainers(
      [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }],
      { replicas: 1, selector: { matchLabels: { app: 'web' } } },
    );
    const r = await apply(server, WEB, config, 'alice');
    expect(r.status).toBe(201);
    expect(r.json.metadata.generation).toBe(1);
    expect(r.json.metadata.managedFields).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"web"}': {
                    '.': {},
                    'f:image': {},
                    'f:name': {},
                    'f:ports': {
                      'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ]);
  });

  it('containers merge by name: each manager owns its own container', async () => {
    await apply(server, WEB, withContainers([{ name: 'web', image: 'nginx:1' }]), 'alice');
    const r = await apply(
      server,
      WEB,
      withContainers([{ name: 'proxy', image: 'envoy:1' }]),
      'bob',
    );
    expect(r.status).toBe(200);
    expect(r.json.spec.template.spec.containers).toEqual([
      { name: 'web', image: 'nginx:1' },
      { name: 'proxy', image: 'envoy:1' },
    ]);
    const own = owners(r.json) as any;
    const itemsOf = (who: string) =>
      Object.keys(own[who]['f:spec']['f:template']['f:spec']['f:containers']);
    expect(itemsOf('alice/Apply')).toEqual(['k:{"name":"web"}']);
    expect(itemsOf('bob/Apply')).toEqual(['k:{"name":"proxy"}']);
    // Alice dropping her container removes it; bob's stays.
    const dropped = await apply(
      server,
      WEB,
      withContainers([{ name: 'proxy', image: 'envoy:1' }]),
      'alice',
    );
    expect(dropped.json.spec.template.spec.containers).toEqual([
      { name: 'proxy', image: 'envoy:1' },
    ]);
  });

  it('an atomic list (args) is owned whole: another value conflicts, force replaces it whole', async () => {
    const alice = withContainers([{ name: 'web', image: 'nginx:1', args: ['--a', '--b'] }]);
    await apply(server, WEB, alice, 'alice');
    const bob = withContainers([{ name: 'web', args: ['--c'] }]);
    const r = await apply(server, WEB, bob, 'bob');
    expect(r.status).toBe(409);
    expect(r.json.details.causes).toEqual([
      {
        type: 'FieldManagerConflict',
        message: 'conflict with "alice"',
        field: '.spec.template.spec.containers[name="web"].args',
      },
    ]);
    const forced = await apply(server, WEB, bob, 'bob', { force: 'true' });
    expect(forced.json.spec.template.spec.containers).toEqual([
      { name: 'web', image: 'nginx:1', args: ['--c'] },
    ]);
    const own = owners(forced.json) as any;
    const item = (who: string) =>
      own[who]['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'];
    expect(item('bob/Apply')).toEqual({ '.': {}, 'f:args': {}, 'f:name': {} });
    expect(item('alice/Apply')).toEqual({ '.': {}, 'f:image': {}, 'f:name': {} });
  });

  it('finalizers are a set: each manager owns its own values', async () => {
    const cm = (finalizers: string[]) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', finalizers },
    });
    const path = '/api/v1/namespaces/default/configmaps/c';
    await apply(server, path, cm(['example.com/a']), 'alice');
    const r = await apply(server, path, cm(['example.com/b']), 'bob');
    expect(r.json.metadata.finalizers).toEqual(['example.com/a', 'example.com/b']);
    expect(owners(r.json)).toEqual({
      'alice/Apply': { 'f:metadata': { 'f:finalizers': { 'v:"example.com/a"': {} } } },
      'bob/Apply': { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } } },
    });
    const dropped = await apply(server, path, cm([]), 'alice');
    expect(dropped.json.metadata.finalizers).toEqual(['example.com/b']);
  });

  it("a custom resource: lists are atomic, unless its CRD's schema makes them list-maps", async () => {
    server.defineResource({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      kind: 'Widget',
    });
    const path = '/apis/example.com/v1/namespaces/default/widgets/w';
    const widget = (ports: unknown[]) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { ports },
    });
    const created = await apply(server, path, widget([{ name: 'a', port: 1 }]), 'alice');
    // Without a schema, every map key is owned itself ("." on spec) and the list is atomic.
    expect(owners(created.json)['alice/Apply']).toEqual({
      'f:spec': { '.': {}, 'f:ports': {} },
    });
    const atomic = await apply(server, path, widget([{ name: 'b', port: 2 }]), 'bob');
    expect(atomic.json.details.causes[0].field).toBe('.spec.ports');

    const crd = server.get(CRDS, undefined, 'widgets.example.com') as any;
    crd.spec.versions[0].schema.openAPIV3Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, port: { type: 'integer' } },
              },
            },
          },
        },
      },
    };
    server.update(CRDS, crd);
    const merged = await apply(server, path, widget([{ name: 'b', port: 2 }]), 'bob');
    expect(merged.status).toBe(200);
    expect(merged.json.spec.ports).toEqual([
      { name: 'a', port: 1 },
      { name: 'b', port: 2 },
    ]);
    expect(owners(merged.json)['bob/Apply']).toEqual({
      'f:spec': { 'f:ports': { 'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
    });
  });
});
