// controller(): read-your-own-writes against a real FakeKubeApiServer on loopback. A run writes
// through ctx.api; the watch that would show the write is held back (the server's stall fault);
// the key's next run waits for its store to show the write, or for expectationTimeoutMs.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { Action } from '../../src/controller/Action.js';
import { controller } from '../../src/controller/controller.js';
import type { ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { configmaps, deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment } from '../../src/testing/marbles/builders.js';
import { sleep, until } from '../support/wait.js';

let server: FakeKubeApiServer | undefined;
const subscriptions: Subscription[] = [];

afterEach(async () => {
  subscriptions.splice(0).forEach((s) => s.unsubscribe());
  await server?.stop();
  server = undefined;
});

interface Seen {
  at: number;
  step: string | undefined;
}

/**
 * A controller over ConfigMaps whose run marks `web` (a merge patch through ctx.api) and asks
 * to run again 50 ms later: the next run must read its own mark. The configmaps watch is the
 * only one, and it is stalled for `stallMs` from its start.
 */
async function marking(stallMs: number, expectationTimeoutMs?: number) {
  const fake = (server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 }));
  fake.create(configmaps, { metadata: { name: 'web', namespace: 'default' }, data: { a: '1' } });
  fake.faults.stall(stallMs, { path: '/api/v1/configmaps' });
  const began = Date.now();
  const seen: Seen[] = [];
  const reports: ReconcileReport[] = [];
  subscriptions.push(
    controller<V1ConfigMap>({
      cluster: fake.kubeConfig(),
      for: { resource: configmaps },
      rateLimit: false,
      ...(expectationTimeoutMs !== undefined && { expectationTimeoutMs }),
      reconcile: async (object, { api }) => {
        const step = object?.metadata?.annotations?.step;
        seen.push({ at: Date.now() - began, step });
        if (!object || seen.length > 2) return;
        const mark = { metadata: { annotations: { step: String(seen.length) } } };
        await api(configmaps).patch('web', mark, { namespace: 'default', type: 'merge' });
        return Action.requeueAfter(50);
      },
    }).subscribe((report) => reports.push(report)),
  );
  return { fake, seen, reports };
}

describe('controller: read your own writes', () => {
  it('holds the next run until the held-back watch shows the write, then it reads it', async () => {
    const { seen, reports } = await marking(1500);
    await until(() => reports.length >= 2, 'a second run and its report', 10_000);
    // The first run read no mark and wrote one; the second (asked for 50 ms later) waited for
    // the stalled watch to deliver that write, and read it. Without the wait it would have run
    // at ~50 ms and read no mark.
    expect(seen[0]!.step).toBeUndefined();
    expect(seen[1]!.step).toBe('1');
    expect(seen[1]!.at).toBeGreaterThanOrEqual(1400);
    expect(reports[1]).toMatchObject({ outcome: 'requeue' });
    expect(reports.every((report) => report.staleRead === undefined)).toBe(true);
  }, 15_000);

  it('runs after expectationTimeoutMs when the store never shows the write, with staleRead', async () => {
    const { seen, reports } = await marking(4000, 300);
    await until(() => reports.length >= 2, 'a second report', 10_000);
    // The watch is still stalled: the run that starts after the timeout reads the old object,
    // and says so.
    expect(seen[1]!.step).toBeUndefined();
    expect(seen[1]!.at).toBeGreaterThanOrEqual(280);
    expect(seen[1]!.at).toBeLessThan(3500);
    expect(reports[0]!.staleRead).toBeUndefined();
    expect(reports[1]).toMatchObject({ staleRead: true });
  }, 15_000);

  it('never creates a child twice: the next run waits for the owned store to have it', async () => {
    const fake = (server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 }));
    fake.create(deployments, deployment('web', '', { metadata: { generation: 1 } }));
    // The owned pods' watch is held back for a second: the created pod reaches the store late.
    fake.faults.stall(1000, { path: '/api/v1/pods' });
    let runs = 0;
    subscriptions.push(
      controller<V1Deployment>({
        cluster: fake.kubeConfig(),
        for: { resource: deployments },
        owns: [{ resource: pods }],
        rateLimit: false,
        reconcile: async (web, { stores, api }) => {
          runs++;
          if (!web) return;
          const uid = web.metadata!.uid!;
          const children = stores
            .get(pods)!
            .values()
            .filter((p) => p.metadata?.ownerReferences?.some((ref) => ref.uid === uid));
          if (children.length === 0) await api(pods).create(child(web));
          // Runs again soon, whatever happens: the read of its own create is what is checked.
          return Action.requeueAfter(20);
        },
      }).subscribe(),
    );
    await until(() => runs >= 5, 'five runs', 10_000);
    await sleep(1200);
    const creates = fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/pods'));
    // One create, however many runs: without the wait, every run during the stall (one per
    // 20 ms) would have found no child and created another.
    expect(creates.length).toBe(1);
    expect(fake.objects(pods)).toHaveLength(1);
    expect(runs).toBeGreaterThanOrEqual(5);
  }, 15_000);
});

function child(owner: V1Deployment): V1Pod {
  return {
    metadata: {
      generateName: 'web-',
      namespace: 'default',
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: owner.metadata!.name!,
          uid: owner.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
  };
}
