// The specs of every ResourceApi method against a FakeKubeApiServer, run once per transport:
// resourceApi.spec.ts (undici HTTP/1.1 and node:http2 over TLS) and resourceApi.fetch.spec.ts
// (the browser entry's fetch). Imported after the fetch spec swaps the platform modules.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Deployment, V1Namespace, V1Node } from '@kubernetes/client-node';
import { resourceApi } from '../../../src/client/write/resourceApi.js';
import { isAlreadyExists, isConflict, isNotFound, WatchError } from '../../../src/WatchError.js';
import { configmaps, deployments, namespaces, nodes } from '../../../src/objects/resources.js';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { Cluster } from '../../../src/types.js';

/** One transport to run the suite over. */
export interface Transport {
  /** Starts the server this transport talks to. */
  start(): Promise<FakeKubeApiServer>;
  /** The cluster that reaches it through this transport. */
  cluster(server: FakeKubeApiServer): Cluster;
  /** What the server records as the request's HTTP version. */
  httpVersion: '1.1' | '2.0';
  /** Whether requests go through fetch (they carry its `sec-fetch-mode` header). */
  fetch?: boolean;
}

const webDeployment = (name: string): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', labels: { app: name } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          { name: 'main', image: 'web:1' },
          { name: 'log', image: 'log:1' },
        ],
      },
    },
  },
});

/** The suite of every method over `transport`. */
export function describeResourceApi(title: string, transport: Transport): void {
  describe(`resourceApi over ${title}`, () => {
    let server: FakeKubeApiServer;
    let cluster: Cluster;
    beforeAll(async () => {
      server = await transport.start();
      cluster = transport.cluster(server);
    });
    afterAll(() => server.stop());
    beforeEach(() => {
      server.requests.length = 0;
    });
    /** The requests sent, as `METHOD path content-type query`. */
    const sent = () =>
      server.requests.map((r) => {
        expect(r.httpVersion).toBe(transport.httpVersion);
        expect(r.headers['sec-fetch-mode'] !== undefined).toBe(transport.fetch ?? false);
        const query = new URLSearchParams(r.query).toString();
        return `${r.method} ${r.path} ${r.headers['content-type'] ?? '-'} ${query}`.trim();
      });

    it('create, get, replace (stale: CONFLICT), create again (AlreadyExists), list of every page', async () => {
      const api = resourceApi(cluster, configmaps);
      const created = await api.create(
        { metadata: { name: 'a', namespace: 'ns1' }, data: { k: 'v' } },
        { fieldManager: 'writer' },
      );
      expect(created).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } });
      expect(created.metadata?.uid).toEqual(expect.any(String));
      const got = await api.get('a', { namespace: 'ns1' });
      expect(got.metadata?.uid).toBe(created.metadata?.uid);
      const replaced = await api.replace({ ...got, data: { k: 'w' } });
      expect(replaced.data).toEqual({ k: 'w' });
      expect(server.get(configmaps, 'ns1', 'a')?.data).toEqual({ k: 'w' });
      const stale = await api.replace({ ...got, data: { k: 'x' } }).catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(WatchError);
      expect(stale).toMatchObject({ errorType: 'CONFLICT', statusCode: 409, reason: 'Conflict' });
      expect(isConflict(stale)).toBe(true);
      const again = await api.create({ metadata: { name: 'a', namespace: 'ns1' } }).catch((e) => e);
      expect([again.errorType, isAlreadyExists(again), isConflict(again)]).toEqual([
        'CONFLICT',
        true,
        false,
      ]);
      expect(sent()).toEqual([
        'POST /api/v1/namespaces/ns1/configmaps application/json fieldManager=writer',
        'GET /api/v1/namespaces/ns1/configmaps/a -',
        'PUT /api/v1/namespaces/ns1/configmaps/a application/json',
        'PUT /api/v1/namespaces/ns1/configmaps/a application/json',
        'POST /api/v1/namespaces/ns1/configmaps application/json',
      ]);

      for (const name of ['b', 'c', 'd', 'e'])
        await api.create({ metadata: { name, namespace: 'ns1' } });
      await api.create({ metadata: { name: 'z', namespace: 'ns2' } });
      server.requests.length = 0;
      const listed = await api.list({ namespace: 'ns1', limit: 2 });
      expect(listed.items.map((cm: V1ConfigMap) => cm.metadata?.name)).toEqual([
        'a',
        'b',
        'c',
        'd',
        'e',
      ]);
      expect(listed.resourceVersion).toMatch(/^\d+$/);
      expect(sent().map((line) => line.replace(/continue=[^&]*/, 'continue=…'))).toEqual([
        'GET /api/v1/namespaces/ns1/configmaps - limit=2',
        'GET /api/v1/namespaces/ns1/configmaps - limit=2&continue=…',
        'GET /api/v1/namespaces/ns1/configmaps - limit=2&continue=…',
      ]);
      const everywhere = await api.list({ labelSelector: 'none=here' });
      expect(everywhere.items).toEqual([]);
      expect(sent().at(-1)).toBe('GET /api/v1/configmaps - labelSelector=none%3Dhere&limit=500');
    });

    it('patch: merge, JSON and strategic merge with their content types; dryRun stores nothing', async () => {
      server.create(deployments, webDeployment('web'));
      const api = resourceApi(cluster, deployments);
      const merged = await api.patch(
        'web',
        { metadata: { labels: { tier: 'front' } } },
        {
          namespace: 'shop',
          type: 'merge',
          fieldManager: 'patcher',
        },
      );
      expect(merged.metadata?.labels).toEqual({ app: 'web', tier: 'front' });
      const jsonPatched = await api.patch(
        'web',
        [{ op: 'replace', path: '/spec/replicas', value: 3 }],
        { namespace: 'shop', type: 'json' },
      );
      expect(jsonPatched.spec?.replicas).toBe(3);
      // Strategic: containers merge by name (a merge patch would replace the list).
      const strategic = await api.patch(
        'web',
        { spec: { template: { spec: { containers: [{ name: 'main', image: 'web:2' }] } } } },
        { namespace: 'shop', type: 'strategic' },
      );
      expect(strategic.spec?.template.spec?.containers.map((c) => c.image)).toEqual([
        'web:2',
        'log:1',
      ]);
      const dry = await api.patch(
        'web',
        { spec: { replicas: 9 } },
        {
          namespace: 'shop',
          type: 'merge',
          dryRun: true,
        },
      );
      expect(dry.spec?.replicas).toBe(9);
      expect(server.get(deployments, 'shop', 'web')?.spec?.replicas).toBe(3);
      const path = '/apis/apps/v1/namespaces/shop/deployments/web';
      expect(sent()).toEqual([
        `PATCH ${path} application/merge-patch+json fieldManager=patcher`,
        `PATCH ${path} application/json-patch+json`,
        `PATCH ${path} application/strategic-merge-patch+json`,
        `PATCH ${path} application/merge-patch+json dryRun=All`,
      ]);
    });

    it('apply: PATCH application/apply-patch+yaml with fieldManager, force and dryRun only when asked', async () => {
      server.create(deployments, webDeployment('applied'));
      const api = resourceApi(cluster, deployments);
      const config = { metadata: { name: 'applied', namespace: 'shop' }, spec: { replicas: 2 } };
      // The test server applies as kube-apiserver does: the object was made without a field
      // manager (server.create), so its fields are owned by 'before-first-apply' and a different
      // replicas is a conflict, parsed into `conflicts`; force takes it over.
      const conflict = await api.apply(config, { fieldManager: 'op' }).catch((e) => e);
      expect([conflict.errorType, isConflict(conflict)]).toEqual(['CONFLICT', true]);
      expect(conflict.conflicts).toEqual([
        expect.objectContaining({ manager: 'before-first-apply', field: '.spec.replicas' }),
      ]);
      const dry = await api.apply(
        { ...config, spec: { replicas: 7 } },
        { fieldManager: 'op', force: true, dryRun: true },
      );
      expect(dry.spec?.replicas).toBe(7);
      expect(server.get(deployments, 'shop', 'applied')?.spec?.replicas).toBe(1);
      const applied = await api.apply(config, { fieldManager: 'op', force: true });
      expect(applied.spec?.replicas).toBe(2);
      expect(applied.metadata?.managedFields?.map((f) => [f.manager, f.operation])).toContainEqual([
        'op',
        'Apply',
      ]);
      const path = '/apis/apps/v1/namespaces/shop/deployments/applied';
      expect(sent()).toEqual([
        `PATCH ${path} application/apply-patch+yaml fieldManager=op`,
        `PATCH ${path} application/apply-patch+yaml dryRun=All&fieldManager=op&force=true`,
        `PATCH ${path} application/apply-patch+yaml fieldManager=op&force=true`,
      ]);
    });

    it('delete: a DeleteOptions body; a failed precondition is CONFLICT, dryRun keeps it, then NotFound', async () => {
      const api = resourceApi(cluster, configmaps);
      const cm = await api.create({ metadata: { name: 'doomed', namespace: 'ns1' } });
      const wrongUid = await api
        .delete('doomed', { namespace: 'ns1', preconditions: { uid: 'not-its-uid' } })
        .catch((e) => e);
      expect([wrongUid.errorType, isConflict(wrongUid)]).toEqual(['CONFLICT', true]);
      await api.delete('doomed', { namespace: 'ns1', dryRun: true });
      expect(server.get(configmaps, 'ns1', 'doomed')).toBeDefined();
      const answer = await api.delete('doomed', {
        namespace: 'ns1',
        propagationPolicy: 'Background',
        preconditions: { uid: cm.metadata!.uid! },
        gracePeriodSeconds: 0,
      });
      expect(answer).toMatchObject({ kind: 'Status', status: 'Success' });
      const gone = await api.get('doomed', { namespace: 'ns1' }).catch((e) => e);
      expect([gone.errorType, isNotFound(gone)]).toEqual(['NOT_FOUND', true]);
      const again = await api.delete('doomed', { namespace: 'ns1' }).catch((e) => e);
      expect(isNotFound(again)).toBe(true);
      const path = '/api/v1/namespaces/ns1/configmaps/doomed';
      expect(sent().slice(1)).toEqual([
        `DELETE ${path} application/json`,
        `DELETE ${path} application/json dryRun=All`,
        `DELETE ${path} application/json`,
        `GET ${path} -`,
        `DELETE ${path} application/json`,
      ]);
    });

    it('scale: get, patch and replace the autoscaling/v1 Scale; status: the subresource path', async () => {
      server.create(deployments, webDeployment('scaled'));
      const api = resourceApi(cluster, deployments);
      const scale = await api.scale.get('scaled', { namespace: 'shop' });
      expect(scale).toMatchObject({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        spec: { replicas: 1 },
      });
      await api.scale.patch(
        'scaled',
        { spec: { replicas: 4 } },
        { namespace: 'shop', type: 'merge' },
      );
      expect(server.get(deployments, 'shop', 'scaled')?.spec?.replicas).toBe(4);
      const current = await api.scale.get('scaled', { namespace: 'shop' });
      const replaced = await api.scale.replace({ ...current, spec: { replicas: 5 } });
      expect(replaced.spec?.replicas).toBe(5);
      expect(server.get(deployments, 'shop', 'scaled')?.spec?.replicas).toBe(5);
      // The status subresource: the test server may not serve it; the path is what is checked
      // here (its semantics against a recorded answer: resourceApi.raw.spec.ts).
      await api.status.get('scaled', { namespace: 'shop' }).catch(() => undefined);
      await api.status
        .patch('scaled', { status: { replicas: 1 } }, { namespace: 'shop', type: 'merge' })
        .catch(() => undefined);
      const path = '/apis/apps/v1/namespaces/shop/deployments/scaled';
      expect(sent()).toEqual([
        `GET ${path}/scale -`,
        `PATCH ${path}/scale application/merge-patch+json`,
        `GET ${path}/scale -`,
        `PUT ${path}/scale application/json`,
        `GET ${path}/status -`,
        `PATCH ${path}/status application/merge-patch+json`,
      ]);
    });

    it('cluster-scoped resources (namespaces, nodes) have no namespace in their paths', async () => {
      const ns = resourceApi(cluster, namespaces);
      const created: V1Namespace = await ns.create({ metadata: { name: 'team-a' } });
      expect(created.metadata?.uid).toEqual(expect.any(String));
      expect((await ns.get('team-a')).metadata?.name).toBe('team-a');
      const nodeApi = resourceApi(cluster, nodes);
      // An object's metadata.namespace is not a path segment for a cluster-scoped kind.
      await nodeApi.create({ metadata: { name: 'n1', namespace: 'ignored' } } as V1Node);
      const labelled = await nodeApi.patch(
        'n1',
        { metadata: { labels: { zone: 'a' } } },
        {
          type: 'merge',
        },
      );
      expect(labelled.metadata?.labels).toEqual({ zone: 'a' });
      expect((await nodeApi.list()).items.map((n) => n.metadata?.name)).toEqual(['n1']);
      await ns.delete('team-a');
      expect(server.get(namespaces, undefined, 'team-a')).toBeUndefined();
      expect(sent()).toEqual([
        'POST /api/v1/namespaces application/json',
        'GET /api/v1/namespaces/team-a -',
        'POST /api/v1/nodes application/json',
        'PATCH /api/v1/nodes/n1 application/merge-patch+json',
        'GET /api/v1/nodes - limit=500',
        'DELETE /api/v1/namespaces/team-a application/json',
      ]);
    });

    it('16 writes in flight without a signal: every one lands, no signal gathers their listeners', async () => {
      const api = resourceApi(cluster, configmaps);
      // The most abort listeners one signal held at once: a signal shared by every request
      // would hold one per request in flight (and Node warns of a leak past 10).
      const live = new Map<EventTarget, number>();
      let most = 0;
      const { addEventListener: add, removeEventListener: remove } = EventTarget.prototype;
      EventTarget.prototype.addEventListener = function (this: EventTarget, type, ...rest) {
        if (type === 'abort')
          most = Math.max(most, live.set(this, (live.get(this) ?? 0) + 1).get(this)!);
        return add.call(this, type, ...rest);
      };
      EventTarget.prototype.removeEventListener = function (this: EventTarget, type, ...rest) {
        if (type === 'abort') live.set(this, (live.get(this) ?? 1) - 1);
        return remove.call(this, type, ...rest);
      };
      try {
        await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            api.create({ metadata: { name: `many-${i}`, namespace: 'ns3' } }),
          ),
        );
      } finally {
        EventTarget.prototype.addEventListener = add;
        EventTarget.prototype.removeEventListener = remove;
      }
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThan(4);
      expect((await api.list({ namespace: 'ns3' })).items).toHaveLength(16);
    });

    it('an abort rejects at once with SYSTEM_ERROR (aborted); an already aborted signal sends nothing', async () => {
      const api = resourceApi(cluster, configmaps);
      server.faults.delayHeaders(5000, { times: 1 });
      const controller = new AbortController();
      const started = Date.now();
      const pending = api.get('a', { namespace: 'ns1', signal: controller.signal }).catch((e) => e);
      setTimeout(() => controller.abort(), 50);
      expect(await pending).toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 0 });
      expect(Date.now() - started).toBeLessThan(2000);
      server.requests.length = 0;
      const before = await api
        .create({ metadata: { name: 'never', namespace: 'ns1' } }, { signal: controller.signal })
        .catch((e) => e);
      expect(before.message).toMatch(/^aborted/);
      expect(server.requests).toEqual([]);
    });
  });
}
