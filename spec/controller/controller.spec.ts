// controller() against a real FakeKubeApiServer on loopback: level-triggered runs on shared
// informers, with small real timings.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { Subject } from 'rxjs';
import { controller } from '../../src/controller/controller.js';
import type { ControllerConfig } from '../../src/controller/ControllerConfig.js';
import type { ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { createInformers } from '../../src/operators/createInformers.js';
import { configmaps, deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import { sleep, until } from '../support/wait.js';

let server: FakeKubeApiServer | undefined;
const subscriptions: Subscription[] = [];

afterEach(async () => {
  subscriptions.splice(0).forEach((s) => s.unsubscribe());
  await server?.stop();
  server = undefined;
});

interface Seen {
  key: string;
  object: V1Deployment | undefined;
  synced: boolean;
}

/** A controller over deployments that records what each run saw. */
async function started(
  config: Partial<ControllerConfig<V1Deployment>> = {},
  arm: (fake: FakeKubeApiServer) => void = () => {},
) {
  const fake = (server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 }));
  fake.create(deployments, deployment('web', '', { metadata: { generation: 1 } }));
  fake.create(deployments, deployment('db', '', { metadata: { generation: 1 } }));
  arm(fake);
  const seen: Seen[] = [];
  const reports: ReconcileReport[] = [];
  let synced = false;
  const loop = controller<V1Deployment>({
    cluster: fake.kubeConfig(),
    for: { resource: deployments },
    onSynced: () => (synced = true),
    reconcile: async (object, { key }) => void seen.push({ key, object, synced }),
    ...config,
  });
  subscriptions.push(loop.subscribe((report) => reports.push(report)));
  const runsOf = (key: string) => seen.filter((s) => s.key === key);
  return { fake, seen, reports, runsOf, isSynced: () => synced };
}

const update = (fake: FakeKubeApiServer, name: string, patch: Partial<V1Deployment>) => {
  const current = fake.get(deployments, 'default', name)!;
  return fake.update(deployments, {
    ...current,
    ...patch,
    metadata: { ...current.metadata, ...patch.metadata },
  });
};

describe('controller: waits for every store, then runs each primary once', () => {
  it('calls onSynced before any run, and runs every primary object', async () => {
    const { seen, isSynced } = await started({ owns: [{ resource: pods }] });
    await until(() => seen.length >= 2, 'both deployments reconciled');
    expect(isSynced()).toBe(true);
    expect(seen.every((s) => s.synced)).toBe(true);
    expect(seen.map((s) => s.key).sort()).toEqual(['default/db', 'default/web']);
  });
});

describe('controller: a refused watch waits, it never ends the controller', () => {
  it('retries a refused store (RBAC applied later), reports it through onLifecycle, runs once synced', async () => {
    const lifecycle: string[] = [];
    const { seen, reports } = await started(
      {
        owns: [{ resource: pods }],
        onLifecycle: (resource, event) => lifecycle.push(`${resource.plural} ${event.type}`),
      },
      // The owned pods are refused twice, as before a Role that grants them is applied.
      (fake) => fake.faults.fail(403, { times: 2, match: 'list', path: '/api/v1/pods' }),
    );
    await until(() => lifecycle.filter((e) => e === 'pods backoff').length >= 2, 'two backoffs');
    // Refused: no store is synced, so nothing ran yet.
    expect(seen).toEqual([]);
    await until(
      () => seen.length >= 2,
      'both deployments reconciled once the pods are listed',
      15_000,
    );
    expect(seen.map((s) => s.key).sort()).toEqual(['default/db', 'default/web']);
    expect(lifecycle).toContain('pods relist-end');
    expect(reports.length).toBeGreaterThanOrEqual(2);
    // A refusal that would end a watch (onRefused: 'error') would have ended the controller.
    expect(subscriptions.at(-1)!.closed).toBe(false);
  }, 20_000);
});

describe('controller: level-triggered, the object as stored when the run starts', () => {
  it('reads the latest object at run start, and undefined after a deletion', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: Array<string | undefined> = [];
    const { fake, runsOf } = await started({
      reconcile: async (object, { key }) => {
        if (key !== 'default/web') return;
        seen.push(object?.metadata?.labels?.v);
        if (seen.length === 1) await gate; // the first run holds while two changes happen
      },
    });
    void runsOf;
    await until(() => seen.length === 1, 'the first run of web');
    update(fake, 'web', { metadata: { labels: { v: '2' } } });
    update(fake, 'web', { metadata: { labels: { v: '3' } } });
    await sleep(50);
    release();
    await until(() => seen.length === 2, 'a second run');
    await sleep(100);
    expect(seen).toEqual([undefined, '3']); // one run for both changes, with the last
    fake.delete(deployments, 'default', 'web');
    await until(() => seen.length === 3, 'a run after the deletion');
    expect(seen[2]).toBeUndefined();
  });
});

describe('controller: a deletion is reconciled once', () => {
  it('runs once with undefined for a change and a deletion that arrive together', async () => {
    const { fake, runsOf } = await started();
    await until(() => runsOf('default/web').length === 1, 'the first run');
    update(fake, 'web', { metadata: { labels: { v: '2' } } });
    fake.delete(deployments, 'default', 'web');
    await until(() => runsOf('default/web').some((s) => s.object === undefined), 'a run after it');
    await sleep(200);
    expect(runsOf('default/web').filter((s) => s.object === undefined)).toHaveLength(1);
    expect(runsOf('default/web').at(-1)!.object).toBeUndefined();
  });
});

describe('controller: status-only churn does not trigger', () => {
  it('skips a status change, runs on a generation or label change', async () => {
    const { fake, runsOf } = await started();
    await until(() => runsOf('default/web').length === 1, 'the first run');
    update(fake, 'web', { status: { replicas: 3, readyReplicas: 2 } });
    await sleep(200);
    expect(runsOf('default/web')).toHaveLength(1);
    update(fake, 'web', {
      metadata: { generation: 2 },
      spec: { ...deployment('web', '').spec!, replicas: 4 },
    });
    await until(() => runsOf('default/web').length === 2, 'a run for the new generation');
    update(fake, 'web', { metadata: { labels: { team: 'a' } } });
    await until(() => runsOf('default/web').length === 3, 'a run for the new label');
  });
});

describe('controller: owns maps a controller ownerReference to its owner', () => {
  it('runs the owner when its controlled pod changes, not for a non-controller reference', async () => {
    const { fake, runsOf } = await started({ owns: [{ resource: pods }] });
    await until(
      () => runsOf('default/web').length === 1 && runsOf('default/db').length === 1,
      'first runs',
    );
    const owner = (name: string, controllerRef: boolean) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name,
      uid: fake.get(deployments, 'default', name)!.metadata!.uid!,
      controller: controllerRef,
    });
    fake.create(pods, pod('web-1', '', { metadata: { ownerReferences: [owner('web', true)] } }));
    fake.create(pods, pod('db-1', '', { metadata: { ownerReferences: [owner('db', false)] } }));
    await until(() => runsOf('default/web').length === 2, 'a run of web for its pod');
    fake.delete(pods, 'default', 'web-1');
    await until(() => runsOf('default/web').length === 3, 'a run of web for its pod deleted');
    await sleep(100);
    expect(runsOf('default/db')).toHaveLength(1);
  });
});

describe('controller: watches map any object to keys through the stores', () => {
  it('maps a ConfigMap to the deployments that name it, through an index', async () => {
    const { fake, runsOf } = await started({
      for: {
        resource: deployments,
        indexes: { byConfig: (d: V1Deployment) => d.metadata?.annotations?.config },
      },
      watches: [
        {
          resource: configmaps,
          map: (cm: V1ConfigMap, stores) =>
            (stores.get(deployments)?.byIndex('byConfig', cm.metadata!.name!) ?? []).map(
              (d) => `${d.metadata!.namespace}/${d.metadata!.name}`,
            ),
        },
      ],
    });
    await until(() => runsOf('default/web').length === 1, 'the first run');
    update(fake, 'web', { metadata: { annotations: { config: 'settings' } } });
    await until(() => runsOf('default/web').length === 2, 'a run for the annotation');
    fake.create(configmaps, {
      metadata: { name: 'settings', namespace: 'default' },
      data: { a: '1' },
    });
    await until(() => runsOf('default/web').length === 3, 'a run for the ConfigMap');
    await sleep(100);
    expect(runsOf('default/db')).toHaveLength(1);
  });
});

describe('controller: resyncMs triggers every key again', () => {
  it('runs each key again every resyncMs with no change', async () => {
    const { runsOf } = await started({ resyncMs: 150 });
    await until(() => runsOf('default/db').length >= 3, 'two resyncs of db', 5000);
    expect(runsOf('default/web').length).toBeGreaterThanOrEqual(2);
  });
});

describe('controller: shares upstreams with other informer subscribers', () => {
  it('opens one watch for a dashboard store and the controller in one process', async () => {
    const fake = (server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 }));
    fake.create(deployments, deployment('web', '', { metadata: { generation: 1 } }));
    const kc = fake.kubeConfig();
    const informers = createInformers();
    let dashboard = 0;
    subscriptions.push(informers.store(kc, deployments).subscribe((s) => (dashboard = s.size)));
    const runs: string[] = [];
    const stop = new Subject<void>();
    subscriptions.push(
      controller<V1Deployment>({
        cluster: kc,
        informers,
        for: { resource: deployments },
        stop,
        reconcile: async (_, { key }) => void runs.push(key),
      }).subscribe(),
    );
    await until(
      () => runs.includes('default/web') && dashboard === 1,
      'a run and a dashboard snapshot',
    );
    fake.create(deployments, deployment('api', '', { metadata: { generation: 1 } }));
    await until(() => runs.includes('default/api') && dashboard === 2, 'both see api');
    const watches = fake.requests.filter((r) => r.watch && r.path === '/apis/apps/v1/deployments');
    expect(watches).toHaveLength(1);
    expect(fake.openWatches).toBe(1);
    expect(informers.size).toBe(1);
  });
});
