import { describe, expect, it, jest } from '@jest/globals';
import { dashboardRows } from '../../src/cli/dashboard/dashboardRows.js';
import {
  BY_OWNER,
  DeploymentIndex,
  podOwnersByIndex,
  selects,
} from '../../src/cli/dashboard/podOwnership.js';
import { RowDiffer } from '../../src/cli/dashboard/RowDiffer.js';
import { LifecycleReporter } from '../../src/cli/LifecycleReporter.js';
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { Subject } from 'rxjs';
import { ownerIndex } from '../../src/operators/ownerIndex.js';
import type { Store } from '../../src/operators/store/Store.js';
import { toStore } from '../../src/operators/toStore.js';
import { added, deployment, pod, watchError } from '../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';

const ownedBy = (replicaSet: string, kind = 'ReplicaSet') => ({
  ownerReferences: [{ apiVersion: 'apps/v1', kind, name: replicaSet, uid: 'u', controller: true }],
});

/** A store of `objects` indexed by owner, as the dashboard's. */
function indexedStore<T extends KubernetesObject>(objects: T[]): Store<T, typeof BY_OWNER> {
  const events = new Subject<WatchEvent<T>>();
  let store: Store<T, typeof BY_OWNER> | undefined;
  events.pipe(toStore({ indexes: { [BY_OWNER]: ownerIndex } })).subscribe((s) => (store = s));
  objects.forEach((o) => events.next(added(o)));
  return store!;
}

const controlledBy = (kind: string, name: string, uid: string, controller = true) => ({
  ownerReferences: [{ apiVersion: 'apps/v1', kind, name, uid, controller }],
});

describe('pods under their deployment through the owner indexes', () => {
  it('goes deployment -> its ReplicaSets -> their pods, whatever the names, controllers only', () => {
    const web = deployment('web', '1', { metadata: { uid: 'd-web' } });
    const api = deployment('api', '2', { metadata: { uid: 'd-api' } });
    const replicaSets = indexedStore<V1ReplicaSet>([
      // Not named {deployment}-{hash}: only the indexes can place its pods.
      {
        metadata: {
          name: 'odd-name',
          namespace: 'default',
          uid: 'rs-1',
          ...controlledBy('Deployment', 'web', 'd-web'),
        },
      },
      {
        metadata: {
          name: 'api-1',
          namespace: 'default',
          uid: 'rs-2',
          ...controlledBy('Deployment', 'api', 'd-api', false),
        },
      },
    ]);
    const a = pod('a', '1', { metadata: controlledBy('ReplicaSet', 'odd-name', 'rs-1') });
    const b = pod('b', '1', { metadata: controlledBy('ReplicaSet', 'odd-name', 'rs-1', false) });
    const c = pod('c', '1', { metadata: controlledBy('ReplicaSet', 'api-1', 'rs-2') });
    const pods = indexedStore<V1Pod>([a, b, c]);

    const owners = podOwnersByIndex([web, api], replicaSets, pods);
    expect([...owners.entries()].map(([p, d]) => `${p.metadata?.name}:${d}`)).toEqual([
      'a:default/web',
    ]);
    const rows = dashboardRows([web, api], pods.values(), owners);
    expect(rows.filter((r) => r.kind === 'pod').map((r) => `${r.id}:${r.owner}`)).toEqual([
      'default/a:default/web',
      'default/b:null',
      // Not reached through a controller reference: the naming rule places it.
      'default/c:default/api',
    ]);
  });
});

describe('which deployment a pod belongs to', () => {
  const web = deployment('web', '1');
  const webApi = deployment('web-api', '2');
  const index = new DeploymentIndex([web, webApi]);

  it('follows the controlling ReplicaSet, named {deployment}-{hash}', () => {
    expect(index.ownerOf(pod('x', '1', { metadata: ownedBy('web-api-5d8f9c') }))).toBe(
      'default/web-api',
    );
    expect(index.ownerOf(pod('y', '1', { metadata: ownedBy('web-7b6c5d') }))).toBe('default/web');
  });

  it("falls back to the deployment's selector for a pod without a controller, in its namespace only", () => {
    expect(index.ownerOf(pod('z', '1', { metadata: { labels: { app: 'web' } } }))).toBe(
      'default/web',
    );
    expect(
      index.ownerOf(pod('z', '1', { metadata: { namespace: 'other', labels: { app: 'web' } } })),
    ).toBeUndefined();
  });

  it('leaves pods of other controllers alone', () => {
    expect(
      index.ownerOf(
        pod('db-0', '1', { metadata: { ...ownedBy('db', 'StatefulSet'), labels: { app: 'web' } } }),
      ),
    ).toBeUndefined();
  });

  it("gives a pod of a ReplicaSet that is no known deployment's no deployment, whatever its labels", () => {
    const labels = { app: 'web' };
    // A bare ReplicaSet named like the deployment (no -{hash}), and one of a deployment not known.
    expect(
      index.ownerOf(pod('a', '1', { metadata: { ...ownedBy('web'), labels } })),
    ).toBeUndefined();
    expect(
      index.ownerOf(pod('b', '1', { metadata: { ...ownedBy('gone-7b6c5d'), labels } })),
    ).toBeUndefined();
  });

  it('matches label selectors with expressions, and an empty selector matches nothing', () => {
    const labels = { app: 'web', tier: 'front' };
    expect(
      selects(
        {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }],
        },
        labels,
      ),
    ).toBe(true);
    expect(
      selects(
        { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] },
        labels,
      ),
    ).toBe(false);
    expect(
      selects({ matchExpressions: [{ key: 'canary', operator: 'DoesNotExist' }] }, labels),
    ).toBe(true);
    expect(selects({ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels)).toBe(true);
    expect(selects({}, labels)).toBe(false);
    expect(
      selects({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, labels),
    ).toBe(false);
  });
});

describe('dashboard rows and their diffs', () => {
  const crashing = pod('web-7b6c5d-aaaaa', '3', {
    metadata: {
      ...ownedBy('web-7b6c5d'),
      creationTimestamp: '2024-01-01T00:00:00Z' as unknown as Date,
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'c' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'c',
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
        },
      ],
    },
  });

  it('describes deployments (ready/desired) and pods (status, health, restarts, node, owner)', () => {
    const rows = dashboardRows(
      [deployment('web', '1', { status: { readyReplicas: 1 } })],
      [crashing, pod('orphan', '4')],
    );
    expect(rows[0]).toMatchObject({ kind: 'deployment', id: 'default/web', desired: 1, ready: 1 });
    expect(rows[1]).toEqual({
      kind: 'pod',
      id: 'default/web-7b6c5d-aaaaa',
      namespace: 'default',
      name: 'web-7b6c5d-aaaaa',
      owner: 'default/web',
      status: 'CrashLoopBackOff',
      health: 'failing',
      ready: '0/1',
      restarts: 3,
      node: 'node-1',
      created: '2024-01-01T00:00:00Z',
    });
    expect(rows[2]).toMatchObject({ id: 'default/orphan', owner: null });
  });

  it('sends every row first, then only what changed and what went away', () => {
    const differ = new RowDiffer();
    const web = deployment('web', '1');
    const a = pod('a', '1');
    const b = pod('b', '2');
    expect(differ.update(dashboardRows([web], [a, b])).set).toHaveLength(3);
    const a2 = pod('a', '5', { status: { phase: 'Failed' } });
    const diff = differ.update(dashboardRows([web], [a2]));
    expect(diff.set.map((r) => `${r.kind}:${r.id}`)).toEqual(['pod:default/a']);
    expect(diff.remove).toEqual(['pod:default/b']);
    expect(differ.update(dashboardRows([web], [a2]))).toEqual({ set: [], remove: [] });
    expect(differ.rows().map((r) => r.id)).toEqual(['default/web', 'default/a']);
  });

  it('reuses the row of an unchanged object, and makes a new one when its owner changes', () => {
    const web = deployment('web', '1');
    const a = pod('a', '1', { metadata: { labels: { app: 'web' } } });
    const [webRow, aRow] = dashboardRows([web], [a]);
    const again = dashboardRows([web], [a]);
    expect(again[0]).toBe(webRow);
    expect(again[1]).toBe(aRow);
    const orphaned = dashboardRows([], [a]);
    expect(orphaned[0]).toEqual({ ...aRow, owner: null });
    expect(dashboardRows([web], [a])[1]).toMatchObject({ owner: 'default/web' });
  });

  it('does not serialise a row it already sent', () => {
    const differ = new RowDiffer();
    const rows = dashboardRows([deployment('web', '1')], [pod('a', '1'), pod('b', '2')]);
    differ.update(rows);
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      expect(differ.update(rows)).toEqual({ set: [], remove: [] });
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
  });
});

describe('LifecycleReporter', () => {
  const failure = watchError(0, 'connect ECONNREFUSED');

  it('is quiet on the initial list and on routine closes', () => {
    const reporter = new LifecycleReporter('pods');
    expect(reporter.observe({ type: 'relist-start' })).toBeUndefined();
    expect(reporter.state).toBe('connecting');
    expect(reporter.observe({ type: 'relist-end', count: 3 })).toBeUndefined();
    expect(reporter.observe({ type: 'connecting', resourceVersion: '5' })).toBeUndefined();
    expect(reporter.observe({ type: 'connected' })).toBeUndefined();
    expect(reporter.observe({ type: 'disconnected', reason: 'closed' })).toBeUndefined();
    expect(reporter.state).toBe('live');
  });

  it('reports trouble, the back-off and the recovery', () => {
    const reporter = new LifecycleReporter('pods');
    reporter.observe({ type: 'relist-end', count: 0 });
    expect(reporter.observe({ type: 'disconnected', reason: 'error', error: failure })).toMatch(
      /^pods: connection lost: connect ECONNREFUSED/,
    );
    expect(reporter.observe({ type: 'backoff', delay: 1250, attempt: 2, error: failure })).toMatch(
      /^pods: reconnecting in 1\.3s \(attempt 2\)/,
    );
    expect(reporter.state).toBe('reconnecting');
    expect(reporter.observe({ type: 'connected' })).toBe('pods: reconnected, watching again');
    expect(reporter.state).toBe('live');
  });

  it('reports an expiry and the relist once each', () => {
    const reporter = new LifecycleReporter('pods');
    reporter.observe({ type: 'relist-end', count: 0 });
    const gone = watchError(410, 'too old', { reason: 'Expired' });
    expect(
      reporter.observe({ type: 'disconnected', reason: 'error', error: gone }),
    ).toBeUndefined();
    expect(reporter.observe({ type: 'expired' })).toMatch(/410 Gone.*relisting/);
    expect(reporter.observe({ type: 'relist-start' })).toBeUndefined();
    expect(reporter.state).toBe('relisting');
    expect(reporter.observe({ type: 'relist-end', count: 7 })).toBe(
      'pods: relisted 7 objects, resumed watching',
    );
    expect(reporter.state).toBe('live');
  });
});
