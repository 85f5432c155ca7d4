import { afterEach, describe, expect, it } from '@jest/globals';
import { deployments, pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { jsonPatch, mergePatch } from '../../../src/testing/fakeKubeApiServer/jsonPatch.js';
import { schemaFor } from '../../../src/testing/fakeKubeApiServer/patchSchemas.js';
import { strategicMerge } from '../../../src/testing/fakeKubeApiServer/strategicMerge.js';
import { deployment, pod } from '../../../src/testing/marbles/builders.js';
import { request } from './client.js';

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const PODS = '/api/v1/namespaces/default/pods';

const twoContainers = {
  spec: {
    containers: [
      {
        name: 'main',
        image: 'nginx:1',
        env: [{ name: 'A', value: '1' }],
        ports: [{ containerPort: 80 }],
      },
      { name: 'side', image: 'envoy:1' },
    ],
  },
};

describe('strategic merge patch', () => {
  const schema = schemaFor('Pod');

  it('merges containers by name, their env by name and ports by containerPort', () => {
    const patch = {
      spec: {
        containers: [
          {
            name: 'main',
            image: 'nginx:2',
            env: [{ name: 'B', value: '2' }],
            ports: [{ containerPort: 80, name: 'http' }],
          },
          { name: 'new', image: 'busybox' },
        ],
      },
    };
    expect(strategicMerge(twoContainers, patch, schema)).toEqual({
      spec: {
        containers: [
          {
            name: 'main',
            image: 'nginx:2',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            ports: [{ containerPort: 80, name: 'http' }],
          },
          { name: 'side', image: 'envoy:1' },
          { name: 'new', image: 'busybox' },
        ],
      },
    });
  });

  it('a merge patch replaces the same list instead', () => {
    const patch = { spec: { containers: [{ name: 'main', image: 'nginx:2' }] } };
    expect(mergePatch(twoContainers, patch)).toEqual(patch);
  });

  it('honours $patch delete and replace, $setElementOrder, $deleteFromPrimitiveList, $retainKeys, null', () => {
    const original = {
      metadata: { labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] },
      spec: {
        ...twoContainers.spec,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
      },
    };
    const patch = {
      metadata: {
        labels: { a: null, c: '3' },
        finalizers: ['z'],
        '$deleteFromPrimitiveList/finalizers': ['x'],
      },
      spec: {
        '$setElementOrder/containers': [{ name: 'side' }, { name: 'main' }],
        containers: [{ name: 'main', $patch: 'delete' }],
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
      },
    };
    expect(strategicMerge(original, patch, schema)).toEqual({
      metadata: { labels: { b: '2', c: '3' }, finalizers: ['y', 'z'] },
      spec: { containers: [{ name: 'side', image: 'envoy:1' }], strategy: { type: 'Recreate' } },
    });
    const replaced = strategicMerge(
      original,
      { spec: { $patch: 'replace', containers: [] } },
      schema,
    );
    expect(replaced).toEqual({ ...original, spec: { containers: [] } });
    const listReplaced = strategicMerge(
      twoContainers,
      { spec: { containers: [{ $patch: 'replace' }, { name: 'only' }] } },
      schema,
    );
    expect(listReplaced).toEqual({ spec: { containers: [{ name: 'only' }] } });
    expect(strategicMerge({ spec: { a: 1 } }, { spec: { $patch: 'delete' } }, schema)).toEqual({});
  });

  it('orders a deployment template by $setElementOrder as kubectl apply sends it', () => {
    const live = deployment('web', '1', {
      spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } } as any,
    });
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }, { name: 'a' }],
            containers: [{ name: 'c', image: 'x' }],
          },
        },
      },
    };
    const out = strategicMerge(live, patch, schemaFor('Deployment')) as any;
    expect(out.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['b', 'c', 'a']);
  });
});

describe('JSON patch', () => {
  it('adds, removes, replaces, moves, copies and tests, with escaped pointers', () => {
    const doc = { metadata: { labels: { 'app/name': 'web' } }, list: [1, 2] };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'add', path: '/list/0', value: 0 },
      { op: 'remove', path: '/list/1' },
      { op: 'replace', path: '/metadata/labels/app~1name', value: 'api' },
      { op: 'copy', from: '/metadata/labels', path: '/copied' },
      { op: 'move', from: '/copied', path: '/moved' },
      { op: 'test', path: '/moved', value: { 'app/name': 'api' } },
    ]);
    expect(out).toEqual({
      metadata: { labels: { 'app/name': 'api' } },
      list: [0, 2, 3],
      moved: { 'app/name': 'api' },
    });
    expect(doc.list).toEqual([1, 2]);
  });

  it('tests null true for an absent member, as kube-apiserver does (how "no finalizers yet" is tested)', () => {
    expect(
      jsonPatch({ metadata: {} }, [
        { op: 'test', path: '/metadata/finalizers', value: null },
        { op: 'add', path: '/metadata/finalizers', value: ['a/b'] },
      ]),
    ).toEqual({ metadata: { finalizers: ['a/b'] } });
  });

  it('refuses what cannot apply', () => {
    for (const ops of [
      [{ op: 'test', path: '/a', value: 2 }],
      [{ op: 'test', path: '/a', value: null }],
      [{ op: 'test', path: '/missing/deeper', value: null }],
      [{ op: 'remove', path: '/missing' }],
      [{ op: 'replace', path: '/b/c', value: 1 }],
      [{ op: 'add', path: '/list/9', value: 1 }],
      [{ op: 'jump', path: '/a' }],
      [{ op: 'add', path: 'a', value: 1 }],
      { op: 'add' },
    ]) {
      expect(() => jsonPatch({ a: 1, list: [] }, ops)).toThrow(/rejected/);
    }
  });
});

describe('FakeKubeApiServer PATCH', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('applies merge, JSON and strategic merge patches; generation follows the spec', async () => {
    server = await FakeKubeApiServer.start();
    server.create(
      pods,
      pod('a', '', { metadata: { generation: 1 } as any, ...twoContainers } as any),
    );
    const labels = await request(
      server,
      'PATCH',
      `${PODS}/a`,
      { metadata: { labels: { x: 'y' } } },
      { contentType: MERGE },
    );
    expect(labels.status).toBe(200);
    expect(labels.json.metadata).toMatchObject({
      labels: { x: 'y' },
      resourceVersion: '2',
      generation: 1,
    });
    const image = await request(
      server,
      'PATCH',
      `${PODS}/a`,
      [{ op: 'replace', path: '/spec/containers/1/image', value: 'envoy:2' }],
      { contentType: JSON_PATCH },
    );
    expect(image.json.spec.containers[1].image).toBe('envoy:2');
    expect(image.json.metadata.generation).toBe(2);
    const smp = await request(
      server,
      'PATCH',
      `${PODS}/a`,
      { spec: { containers: [{ name: 'main', image: 'nginx:3' }] } },
      { contentType: `${STRATEGIC}; charset=utf-8` },
    );
    expect(smp.json.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual([
      'main=nginx:3',
      'side=envoy:2',
    ]);
    expect(smp.json.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
    expect(server.get(pods, 'default', 'a')).toEqual(smp.json);
  });

  it('refuses: stale resourceVersion 409, strategic merge of a custom resource 415, server-side apply without a fieldManager 422, failed test 422, renames 400, missing 404', async () => {
    server = await FakeKubeApiServer.start();
    server.create(pods, pod('a', ''));
    const crontabs = server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
    });
    server.create(crontabs, {
      metadata: { name: 'c', namespace: 'default' },
      spec: { cronSpec: '* * * * *' },
    } as any);
    const CT = '/apis/stable.example.com/v1/namespaces/default/crontabs/c';
    const cases: Array<[string, unknown, string, number, string]> = [
      [`${PODS}/a`, { metadata: { resourceVersion: '0' } }, MERGE, 409, 'Conflict'],
      [CT, { spec: { cronSpec: 'x' } }, STRATEGIC, 415, 'UnsupportedMediaType'],
      [`${PODS}/a`, 'apiVersion: v1', 'application/apply-patch+yaml', 422, 'Invalid'],
      [`${PODS}/a`, { spec: {} }, 'application/json', 415, 'UnsupportedMediaType'],
      [`${PODS}/a`, [{ op: 'test', path: '/kind', value: 'Service' }], JSON_PATCH, 422, 'Invalid'],
      [`${PODS}/a`, { metadata: { name: 'b' } }, MERGE, 400, 'BadRequest'],
      [`${PODS}/a`, { kind: 'Service' }, MERGE, 400, 'BadRequest'],
      [`${PODS}/a`, '{', MERGE, 400, 'BadRequest'],
      [`${PODS}/zz`, { spec: {} }, MERGE, 404, 'NotFound'],
      [PODS, { spec: {} }, MERGE, 405, 'MethodNotAllowed'],
    ];
    for (const [path, body, type, status, reason] of cases) {
      const r = await request(server, 'PATCH', path, body, { contentType: type });
      expect([path, type, r.status, r.json?.kind, r.json?.reason]).toEqual([
        path,
        type,
        status,
        'Status',
        reason,
      ]);
    }
    const merged = await request(
      server,
      'PATCH',
      CT,
      { spec: { cronSpec: '0 * * * *' } },
      { contentType: MERGE },
    );
    expect(merged.json).toMatchObject({
      kind: 'CronTab',
      spec: { cronSpec: '0 * * * *' },
      metadata: { generation: 2 },
    });
    expect(server.resourceVersion).toBe('4');
  });

  it('patches a deployment template the way kubectl apply does and bumps generation once', async () => {
    server = await FakeKubeApiServer.start();
    const created = (
      await request(
        server,
        'POST',
        '/apis/apps/v1/namespaces/default/deployments',
        deployment('web', ''),
      )
    ).json;
    expect(created.metadata.generation).toBe(1);
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'main' }],
            containers: [{ name: 'main', image: 'nginx:1.28' }],
          },
        },
      },
    };
    const r = await request(
      server,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web',
      patch,
      { contentType: STRATEGIC },
    );
    expect(r.json.metadata.generation).toBe(2);
    expect(server.get(deployments, 'default', 'web')?.spec?.template.spec?.containers).toEqual([
      { name: 'main', image: 'nginx:1.28' },
    ]);
  });
});
