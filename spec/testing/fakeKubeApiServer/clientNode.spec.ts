// Proof that the fake speaks the real protocol: @kubernetes/client-node 1.4's own Watch and
// informer, pointed at it through server.kubeConfig().
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  Watch,
} from '@kubernetes/client-node';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { deployments, pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { until } from '../../support/wait.js';

describe('@kubernetes/client-node against FakeKubeApiServer', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it.each([false, true])(
    'Watch sees ADDED, MODIFIED, DELETED, BOOKMARK and the end (tls: %s)',
    async (tls) => {
      server = await FakeKubeApiServer.start({ tls, bookmarkIntervalMs: 30 });
      server.create(pods, pod('a', '0'));
      const seen: string[] = [];
      let done: unknown = 'not yet';
      const ctrl = await new Watch(server.kubeConfig()).watch(
        '/api/v1/namespaces/default/pods',
        { resourceVersion: '1', allowWatchBookmarks: true },
        (type: string, obj: V1Pod) =>
          seen.push(`${type} ${obj.metadata?.name ?? '-'} ${obj.metadata?.resourceVersion}`),
        (err: unknown) => (done = err),
      );
      await server.waitForConnections(1);
      server.create(pods, pod('b', '0'));
      server.update(pods, pod('b', '0', { status: { phase: 'Succeeded' } }));
      server.delete(pods, 'default', 'b');
      await until(() => seen.some((s) => s.startsWith('BOOKMARK - 4')), 'a bookmark at 4');
      expect(seen.filter((s) => !s.startsWith('BOOKMARK'))).toEqual([
        'ADDED b 2',
        'MODIFIED b 3',
        'DELETED b 4',
      ]);
      server.expireHistory();
      await until(() => done !== 'not yet', 'done');
      expect(done).toBeNull();
      expect(seen.at(-1)).toBe('ERROR - undefined');
      ctrl.abort();
      await server.waitForConnections(0);
    },
  );

  it('Watch reports an HTTP error status through done', async () => {
    server = await FakeKubeApiServer.start();
    let done: any;
    await new Watch(server.kubeConfig({ token: 'stale' })).watch(
      '/api/v1/pods',
      {},
      () => undefined,
      (err: unknown) => (done = err),
    );
    await until(() => done !== undefined, 'done');
    expect(done.statusCode).toBe(401);
  });

  it('makeInformer lists, watches, and relists after the server expires its history', async () => {
    server = await FakeKubeApiServer.start();
    server.create(pods, pod('a', '0'));
    server.create(pods, pod('b', '0'));
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1Pod>(kc, '/api/v1/namespaces/default/pods', () =>
      core.listNamespacedPod({ namespace: 'default' }),
    );
    const log: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (p) => log.push(`add ${p.metadata?.name}`));
    informer.on('update', (p) => log.push(`update ${p.metadata?.name}`));
    informer.on('delete', (p) => log.push(`delete ${p.metadata?.name}`));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      await until(() => server.openWatches === 1, 'the informer watch');
      expect(log.sort()).toEqual(['add a', 'add b']);
      expect(server.requests.map((r) => [r.watch, r.query.resourceVersion])).toEqual([
        [false, undefined],
        [true, '2'],
      ]);
      server.create(pods, pod('c', '0'));
      server.update(pods, pod('a', '0', { status: { phase: 'Failed' } }));
      await until(() => log.length === 4, 'live events');
      expect(log.slice(2)).toEqual(['add c', 'update a']);

      server.expireHistory();
      await until(
        () => server.requests.length === 4 && server.openWatches === 1,
        'the relist and the new watch',
      );
      const [relist, rewatch] = server.requests.slice(2);
      expect([relist.watch, relist.query.resourceVersion, relist.status]).toEqual([
        false,
        undefined,
        200,
      ]);
      expect([rewatch.watch, rewatch.query.resourceVersion]).toEqual([
        true,
        server.resourceVersion,
      ]);
      server.delete(pods, 'default', 'b');
      server.create(pods, pod('d', '0'));
      await until(() => log.length === 6, 'events after the relist');
      expect(log.slice(4)).toEqual(['delete b', 'add d']);
      const names = informer.list('default').map((p) => p.metadata?.name);
      expect(names.sort()).toEqual(server.objects(pods).map((p) => p.metadata?.name));
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
    await server.waitForConnections(0);
  });

  it('KubernetesObjectApi creates, reads, patches, lists and deletes, built-in and custom kinds', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const crontabs = server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
    });
    const api = KubernetesObjectApi.makeApiClient(server.kubeConfig());
    const spec = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'main', image: 'nginx:1.27' },
              { name: 'side', image: 'envoy:1' },
            ],
          },
        },
      },
    };
    const created = await api.create(spec);
    expect(created.metadata).toMatchObject({ name: 'web', generation: 1, uid: expect.any(String) });
    const read = await api.read({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
    });
    expect(read.metadata?.resourceVersion).toBe(
      (created as KubernetesObject).metadata?.resourceVersion,
    );
    const patched = (await api.patch({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.28' }] } } },
    })) as typeof spec;
    expect(patched.spec.template.spec.containers.map((c) => c.image)).toEqual([
      'nginx:1.28',
      'envoy:1',
    ]);
    const typed = await server
      .kubeConfig()
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect(typed.metadata?.generation).toBe(2);
    const ct = {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'c', namespace: 'default' },
      spec: { cronSpec: '* * * * *' },
    };
    await api.create(ct);
    const ctPatched = await api.patch(
      { ...ct, spec: { cronSpec: '0 * * * *' } },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    expect((ctPatched as typeof ct).spec.cronSpec).toBe('0 * * * *');
    await expect(api.patch(ct)).rejects.toMatchObject({ code: 415 });
    const list = await api.list('stable.example.com/v1', 'CronTab', 'default');
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['c']);
    await api.delete(ct);
    await api.delete(spec);
    expect(server.objects(deployments)).toEqual([]);
    expect(server.objects(crontabs)).toEqual([]);
  });
});
