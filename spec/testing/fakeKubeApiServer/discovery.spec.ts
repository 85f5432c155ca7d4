import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeConfig, VersionApi } from '@kubernetes/client-node';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { compareVersions } from '../../../src/testing/fakeKubeApiServer/discovery.js';
import { get } from './client.js';

const crontabs = {
  group: 'stable.example.com',
  version: 'v1',
  plural: 'crontabs',
  kind: 'CronTab',
  shortNames: ['ct'],
  printerColumns: [{ name: 'Spec', type: 'string' as const, jsonPath: '.spec.cronSpec' }],
};

describe('FakeKubeApiServer discovery and health', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('/api lists v1 and the address clients reach it at', async () => {
    server = await FakeKubeApiServer.start();
    const { status, json, headers } = await get(server, '/api');
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/json');
    expect(json).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [
        { clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${server.port}` },
      ],
    });
  });

  it('/api/v1 lists the core resources with verbs, scope, singular and short names', async () => {
    server = await FakeKubeApiServer.start();
    const { json } = await get(server, '/api/v1');
    expect(json).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    const byName = new Map(json.resources.map((r: any) => [r.name, r]));
    expect(byName.get('pods')).toEqual({
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
    });
    expect(byName.get('pods/log')).toMatchObject({ kind: 'Pod', verbs: ['get'] });
    expect(byName.get('namespaces')).toMatchObject({ namespaced: false, shortNames: ['ns'] });
    expect(byName.get('secrets')).not.toHaveProperty('shortNames');
    expect(byName.has('deployments')).toBe(false);
  });

  it('/apis lists the groups with their preferred version, defined resources included', async () => {
    server = await FakeKubeApiServer.start();
    server.defineResource(crontabs);
    server.defineResource({ ...crontabs, version: 'v1beta1' });
    server.defineResource({ ...crontabs, version: 'v2alpha1' });
    const { json } = await get(server, '/apis');
    expect(json.kind).toBe('APIGroupList');
    expect(json.apiVersion).toBe('v1');
    const groups = new Map(json.groups.map((g: any) => [g.name, g]));
    expect(groups.get('apps')).toEqual({
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
    expect(groups.get('stable.example.com')).toEqual({
      name: 'stable.example.com',
      versions: ['v1', 'v1beta1', 'v2alpha1'].map((version) => ({
        groupVersion: `stable.example.com/${version}`,
        version,
      })),
      preferredVersion: { groupVersion: 'stable.example.com/v1', version: 'v1' },
    });
    expect(groups.has('')).toBe(false);
    const group = await get(server, '/apis/stable.example.com');
    expect(group.json).toMatchObject({ kind: 'APIGroup', name: 'stable.example.com' });
  });

  it('/apis/{group}/{version} lists its resources: built-in and defined', async () => {
    server = await FakeKubeApiServer.start();
    const apps = await get(server, '/apis/apps/v1');
    expect(apps.json).toMatchObject({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'apps/v1',
    });
    const names = apps.json.resources.map((r: any) => r.name);
    // As kube-apiserver lists them: each resource, then its subresources (scale, status).
    expect(names).toEqual([
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/status',
      'statefulsets',
      'statefulsets/status',
    ]);
    expect(apps.json.resources[3]).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    server.defineResource({ ...crontabs, namespaced: false, singular: 'crontab' });
    const custom = await get(server, '/apis/stable.example.com/v1');
    expect(custom.json.resources).toEqual([
      {
        name: 'crontabs',
        singularName: 'crontab',
        namespaced: false,
        kind: 'CronTab',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ct'],
      },
    ]);
    for (const path of [
      '/apis/nope.example.com/v1',
      '/apis/apps/v2',
      '/api/v2',
      '/apis/apps/v1/x/y/z/w',
    ]) {
      const r = await get(server, path);
      expect([path, r.status, r.json.kind, r.json.reason]).toEqual([
        path,
        404,
        'Status',
        'NotFound',
      ]);
    }
  });

  it('defineResource gives objects their kind and holds the CRD object', async () => {
    server = await FakeKubeApiServer.start();
    const ref = server.defineResource(crontabs);
    expect(ref).toEqual({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      namespaced: true,
    });
    const created = server.create(ref, { metadata: { name: 'a', namespace: 'default' } });
    expect(created).toMatchObject({ kind: 'CronTab', apiVersion: 'stable.example.com/v1' });
    const list = await get(server, '/apis/stable.example.com/v1/crontabs');
    expect(list.json.kind).toBe('CronTabList');
    const crd = await get(
      server,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com',
    );
    expect(crd.json).toMatchObject({
      kind: 'CustomResourceDefinition',
      spec: {
        group: 'stable.example.com',
        scope: 'Namespaced',
        names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
        versions: [{ name: 'v1', served: true, additionalPrinterColumns: crontabs.printerColumns }],
      },
    });
    server.defineResource({ ...crontabs, shortNames: ['cts'] });
    const again = server.get(
      { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' },
      undefined,
      'crontabs.stable.example.com',
    ) as any;
    expect(again.spec.names.shortNames).toEqual(['cts']);
  });

  it('defineResource refuses invalid names', async () => {
    server = await FakeKubeApiServer.start();
    const bad = [
      { ...crontabs, group: 'Bad_Group' },
      { ...crontabs, version: 'one' },
      { ...crontabs, plural: 'Crontabs' },
      { ...crontabs, kind: 'Cron_Tab' },
      { ...crontabs, shortNames: ['c t'] },
      { ...crontabs, printerColumns: [{ name: 'x', type: 'string' as const, jsonPath: 'spec' }] },
    ];
    for (const def of bad) expect(() => server.defineResource(def)).toThrow(TypeError);
  });

  it('/version, /healthz, /livez and /readyz answer anonymous requests; a wrong token gets 401', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const version = await get(server, '/version', { token: null });
    expect(version.json).toMatchObject({ major: '1', minor: '32', gitVersion: expect.any(String) });
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const r = await get(server, path, { token: null });
      expect([r.status, r.body, r.headers['content-type']]).toEqual([
        200,
        'ok',
        'text/plain; charset=utf-8',
      ]);
    }
    const verbose = await get(server, '/readyz?verbose');
    expect(verbose.body).toMatch(/^\[\+\]ping ok\n[\s\S]*readyz check passed\n$/);
    expect((await get(server, '/version', { token: 'wrong' })).status).toBe(401);
    expect((await get(server, '/api', { token: null })).status).toBe(401);
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeConfig().exportConfig());
    const info = await kc.makeApiClient(VersionApi).getCode();
    expect(info.gitVersion).toBe('v1.32.0-kube-rx-fake');
  });

  it('/openapi/v3 indexes the served group versions; one it does not serve is a 404 Status', async () => {
    server = await FakeKubeApiServer.start();
    const index = await get(server, '/openapi/v3');
    expect(index.status).toBe(200);
    expect(Object.keys(index.json.paths)).toEqual(
      expect.arrayContaining(['api/v1', 'apis/apps/v1', 'apis/rbac.authorization.k8s.io/v1']),
    );
    const r = await get(server, '/openapi/v3/apis/nothing.example.com/v1');
    expect([r.status, r.json.kind, r.json.code]).toEqual([404, 'Status', 404]);
  });

  it('orders versions as Kubernetes does', () => {
    const sorted = ['v1alpha1', 'v2beta1', 'v1', 'v1beta2', 'v2', 'v1beta1', 'v11alpha2'].sort(
      compareVersions,
    );
    expect(sorted).toEqual(['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v11alpha2', 'v1alpha1']);
  });
});
