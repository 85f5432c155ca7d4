// The real kubectl (1.32) against a TLS FakeKubeApiServer with a bearer token, through a
// kubeconfig file the server writes, while a kube-rx store watches the same resource.
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Subscription } from 'rxjs';
import { toStore } from '../../../src/operators/toStore.js';
import { deployments, pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { KubernetesObject, ResourceRef } from '../../../src/types.js';
import { resilientWatch } from '../../../src/operators/resilientWatch.js';
import { until } from '../../support/wait.js';
import { Kubectl } from './kubectl.js';

const POD = (name: string, label: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {app: web, version: "${label}"}
spec:
  containers:
  - name: main
    image: nginx:1.27
`;

const DEPLOYMENT = (image: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: ${image}
      - name: sidecar
        image: envoy:1
`;

const CRONTAB = (spec: string): string => `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: nightly}
spec: {cronSpec: "${spec}"}
`;

const byKey = (objects: KubernetesObject[]): KubernetesObject[] =>
  [...objects].sort((a, b) =>
    `${a.metadata?.namespace}/${a.metadata?.name}` < `${b.metadata?.namespace}/${b.metadata?.name}`
      ? -1
      : 1,
  );

// Every kubectl run starts a process and reads discovery: slow on a loaded machine.
jest.setTimeout(90_000);

describe('kubectl against FakeKubeApiServer', () => {
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  let subscription: Subscription | undefined;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start({
      tls: true,
      token: 'kubectl-token',
      bookmarkIntervalMs: 200,
    });
    kubectl = await Kubectl.for(server);
  });
  afterEach(async () => {
    subscription?.unsubscribe();
    await server.stop();
    await kubectl.cleanup();
  });

  /** A kube-rx store following `resource`; the latest objects. */
  function follow<T extends KubernetesObject>(resource: ResourceRef<T>): () => T[] {
    let latest: T[] = [];
    subscription = resilientWatch(
      server.kubeConfig(),
      resource,
      {},
      { bookmarks: { idleTimeout: 5000 } },
    )
      .pipe(toStore())
      .subscribe((store) => (latest = [...store.values()] as T[]));
    return () => latest;
  }

  async function storeEqualsServer<T extends KubernetesObject>(
    resource: ResourceRef<T>,
    store: () => T[],
  ) {
    await until(
      () => JSON.stringify(byKey(store())) === JSON.stringify(server.objects(resource)),
      () =>
        `the store ${JSON.stringify(store().map((o) => o.metadata?.resourceVersion))} to equal the server`,
    );
    expect(byKey(store())).toEqual(server.objects(resource));
  }

  it('pods: create -f, get, get -o json, get -w, label, apply -f, delete; a kube-rx store follows', async () => {
    const store = follow(pods);
    expect(
      await kubectl.ok(
        'create',
        '-f',
        await kubectl.manifest('a.yaml', POD('web-1', 'v1')),
        '--validate=false',
      ),
    ).toBe('pod/web-1 created\n');
    const table = await kubectl.ok('get', 'pods');
    expect(table).toMatch(
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb-1\s+0\/1\s+Pending\s+0\s+\d+s\n$/,
    );
    const json = JSON.parse(await kubectl.ok('get', 'pods', '-o', 'json'));
    expect(json.items.map((p: any) => p.metadata.name)).toEqual(['web-1']);
    expect(json.items[0].metadata.uid).toBe(server.get(pods, 'default', 'web-1')?.metadata?.uid);

    const watch = kubectl.watch('get', 'pods', '-w');
    try {
      await watch.waitForLine(/^web-1\s/);
      expect(watch.lines[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
      expect(await kubectl.ok('label', 'pod', 'web-1', 'tier=front')).toBe('pod/web-1 labeled\n');
      expect(server.get(pods, 'default', 'web-1')?.metadata?.labels).toEqual({
        app: 'web',
        version: 'v1',
        tier: 'front',
      });
      expect(
        await kubectl.ok(
          'apply',
          '-f',
          await kubectl.manifest('b.yaml', POD('web-2', 'v1')),
          '--validate=false',
        ),
      ).toBe('pod/web-2 created\n');
      await watch.waitForLine(/^web-2\s/);
      expect(
        await kubectl.ok(
          'apply',
          '-f',
          await kubectl.manifest('b.yaml', POD('web-2', 'v2')),
          '--validate=false',
        ),
      ).toBe('pod/web-2 configured\n');
      expect(server.get(pods, 'default', 'web-2')?.metadata?.labels?.version).toBe('v2');
      expect(await kubectl.ok('delete', 'pod', 'web-1', '--wait=false')).toBe(
        'pod "web-1" deleted\n',
      );
      await until(
        () => watch.lines.filter((l) => /^web-1\s/.test(l)).length >= 3,
        'web-1 changed twice in kubectl get -w',
      );
    } finally {
      await watch.kill();
    }
    expect(server.objects(pods).map((p) => p.metadata?.name)).toEqual(['web-2']);
    await storeEqualsServer(pods, store);
    const writes = server.requests.filter((r) => r.method !== 'GET');
    expect(writes.map((r) => `${r.method} ${r.status}`)).toEqual([
      'POST 201',
      'PATCH 200',
      'POST 201',
      'PATCH 200',
      'DELETE 200',
    ]);
    const fromKubectl = server.requests.filter((r) =>
      String(r.headers['user-agent']).startsWith('kubectl'),
    );
    expect(fromKubectl.length).toBeGreaterThan(10);
    expect(fromKubectl.every((r) => r.tokenValid && r.httpVersion === '2.0')).toBe(true);
  });

  it('deployments: create -f, apply -f (strategic merge), scale, label, get -o json, delete', async () => {
    const store = follow(deployments);
    const manifest = await kubectl.manifest('d.yaml', DEPLOYMENT('nginx:1.27'));
    expect(await kubectl.ok('create', '-f', manifest, '--save-config', '--validate=false')).toBe(
      'deployment.apps/web created\n',
    );
    await kubectl.manifest('d.yaml', DEPLOYMENT('nginx:1.28'));
    expect(await kubectl.ok('apply', '-f', manifest, '--validate=false')).toBe(
      'deployment.apps/web configured\n',
    );
    const applied = server.get(deployments, 'default', 'web')!;
    expect(applied.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'main=nginx:1.28',
      'sidecar=envoy:1',
    ]);
    expect(applied.metadata?.generation).toBe(2);
    expect(server.requests.find((r) => r.method === 'PATCH')?.headers['content-type']).toBe(
      'application/strategic-merge-patch+json',
    );
    expect(await kubectl.ok('apply', '-f', manifest, '--validate=false')).toBe(
      'deployment.apps/web unchanged\n',
    );
    expect(await kubectl.ok('scale', 'deployment', 'web', '--replicas=3')).toBe(
      'deployment.apps/web scaled\n',
    );
    expect(await kubectl.ok('label', 'deploy', 'web', 'tier=front')).toBe(
      'deployment.apps/web labeled\n',
    );
    const json = JSON.parse(await kubectl.ok('get', 'deployments.apps', 'web', '-o', 'json'));
    expect(json.spec.replicas).toBe(3);
    expect(json.metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(json.metadata.generation).toBe(3);
    await storeEqualsServer(deployments, store);
    expect(await kubectl.ok('delete', 'deployment', 'web')).toBe('deployment.apps "web" deleted\n');
    expect(server.objects(deployments)).toEqual([]);
    await storeEqualsServer(deployments, store);
  });

  it('a custom resource registered with defineResource: apply -f, get by short name, label, delete', async () => {
    const crontabs = server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      shortNames: ['ct'],
    });
    const store = follow(crontabs);
    const manifest = await kubectl.manifest('ct.yaml', CRONTAB('0 0 * * *'));
    expect(await kubectl.ok('apply', '-f', manifest, '--validate=false')).toBe(
      'crontab.stable.example.com/nightly created\n',
    );
    await kubectl.manifest('ct.yaml', CRONTAB('0 1 * * *'));
    expect(await kubectl.ok('apply', '-f', manifest, '--validate=false')).toBe(
      'crontab.stable.example.com/nightly configured\n',
    );
    expect(server.requests.find((r) => r.method === 'PATCH')?.headers['content-type']).toBe(
      'application/merge-patch+json',
    );
    expect(await kubectl.ok('get', 'ct')).toMatch(/^NAME\s.*\nnightly\s/);
    expect(await kubectl.ok('label', 'crontab', 'nightly', 'team=ops')).toBe(
      'crontab.stable.example.com/nightly labeled\n',
    );
    const json = JSON.parse(await kubectl.ok('get', 'crontabs.stable.example.com', '-o', 'json'));
    expect(json.items[0]).toMatchObject({
      kind: 'CronTab',
      spec: { cronSpec: '0 1 * * *' },
      metadata: { labels: { team: 'ops' }, generation: 2 },
    });
    await storeEqualsServer(crontabs, store);
    expect(await kubectl.ok('get', 'crd', '-o', 'name')).toBe(
      'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com\n',
    );
    expect(await kubectl.ok('delete', 'ct', 'nightly')).toBe(
      'crontab.stable.example.com "nightly" deleted\n',
    );
    await storeEqualsServer(crontabs, store);
    const openapi = server.requests.filter((r) => r.path.startsWith('/openapi/'));
    expect(openapi.length).toBeGreaterThan(0);
    expect(openapi.every((r) => r.status === 200)).toBe(true);
  });

  it('kubectl with a wrong token is refused (401) and says so', async () => {
    server.rotateToken('another');
    const r = await kubectl.run('get', 'pods');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|must be logged in/);
    expect(server.requests.every((req) => req.status === 401 || req.path === '/version')).toBe(
      true,
    );
  });
});
