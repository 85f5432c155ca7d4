// Propagation and garbage collection as kube-apiserver and kube-controller-manager's garbage
// collector do them: Background (owner gone now, dependents after), Foreground (the owner waits
// for its blocking dependents), Orphan (dependents kept, their references to the owner removed);
// owners identified by uid, cluster-scoped owners, no owner across namespaces.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1OwnerReference } from '@kubernetes/client-node';
import {
  configmaps,
  deployments,
  nodes,
  pods,
  replicasets,
  resource,
} from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { FakeKubeApiError } from '../../../src/testing/fakeKubeApiServer/ObjectStore.js';
import { deployment, pod } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../../src/types.js';
import { request, watch } from './client.js';

const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const jobs = resource('batch/v1', 'jobs', { kind: 'Job', namespaced: true });

const ownedBy = (owner: KubernetesObject, block = true): V1OwnerReference => ({
  apiVersion: owner.apiVersion!,
  kind: owner.kind!,
  name: owner.metadata!.name!,
  uid: owner.metadata!.uid!,
  controller: true,
  blockOwnerDeletion: block,
});
const meta = (name: string, owners: V1OwnerReference[], extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default', ownerReferences: owners, ...extra },
});

describe('FakeKubeApiServer garbage collection', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  /** A deployment, its replicaset and two pods of it. */
  function family(): { d: KubernetesObject; rs: KubernetesObject } {
    const d = server.create(deployments, deployment('web', ''));
    const rs = server.create(replicasets, { ...meta('web-1', [ownedBy(d)]) });
    for (const p of ['web-1-a', 'web-1-b']) {
      server.create(pods, pod(p, '', meta(p, [ownedBy(rs)])));
    }
    return { d, rs };
  }
  const names = (objects: KubernetesObject[]): string[] => objects.map((o) => o.metadata!.name!);

  it('Background (the default): the owner is gone at once, its dependents after it, transitively', async () => {
    server = await FakeKubeApiServer.start();
    family();
    server.create(pods, pod('other', ''));
    const w = watch(server, '/api/v1/pods?resourceVersion=5');
    await w.responded;
    const r = await request(server, 'DELETE', `${DEPLOYS}/web`);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Success' });
    const events = await w.waitForEvents(2);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`).sort()).toEqual([
      'DELETED web-1-a',
      'DELETED web-1-b',
    ]);
    await server.settled();
    expect(server.objects(replicasets)).toEqual([]);
    expect(names(server.objects(pods))).toEqual(['other']);
    w.close();
  });

  it('server.delete follows the same rules: dependents go after it; await server.settled()', async () => {
    server = await FakeKubeApiServer.start();
    family();
    server.delete(deployments, 'default', 'web');
    // Asynchronous, as the garbage collector is: nothing has happened yet.
    expect(server.objects(replicasets)).toHaveLength(1);
    await server.settled();
    expect(server.objects(replicasets)).toEqual([]);
    expect(server.objects(pods)).toEqual([]);
  });

  it('a cluster-scoped owner collects namespaced dependents; owners count by uid, not by name', async () => {
    server = await FakeKubeApiServer.start();
    const node = server.create(nodes, { metadata: { name: 'n1' } });
    server.create(configmaps, { ...meta('on-node', [ownedBy(node, false)]) });
    const a = server.create(configmaps, { metadata: { name: 'a', namespace: 'default' } });
    const b = server.create(configmaps, { metadata: { name: 'b', namespace: 'default' } });
    server.create(configmaps, { ...meta('of-a', [ownedBy(a, false)]) });
    server.create(configmaps, { ...meta('of-a-and-b', [ownedBy(a, false), ownedBy(b, false)]) });
    server.delete(nodes, undefined, 'n1');
    server.delete(configmaps, 'default', 'a');
    // Re-created under the same name: a new uid, not the owner the dependents named.
    server.create(configmaps, { metadata: { name: 'a', namespace: 'default' } });
    await server.settled();
    expect(names(server.objects(configmaps))).toEqual(['a', 'b', 'of-a-and-b']);
    // A dependent with a live owner stays; its reference to the dead one is removed.
    const kept = server.get(configmaps, 'default', 'of-a-and-b');
    expect(kept?.metadata?.ownerReferences?.map((o) => o.name)).toEqual(['b']);
  });

  it('a namespaced owner cannot own objects in another namespace: the reference counts as absent', async () => {
    server = await FakeKubeApiServer.start();
    const owner = server.create(configmaps, { metadata: { name: 'owner', namespace: 'default' } });
    server.create(configmaps, {
      metadata: { name: 'elsewhere', namespace: 'prod', ownerReferences: [ownedBy(owner, false)] },
    });
    server.create(configmaps, { ...meta('here', [ownedBy(owner, false)]) });
    await server.settled();
    expect(names(server.objects(configmaps))).toEqual(['here', 'owner']);
    // A reference to an owner this server never held is left alone (fixtures do that).
    const imaginary = { ...ownedBy(owner), name: 'never', uid: 'uid-never-created' };
    server.create(configmaps, { ...meta('fixture', [imaginary]) });
    await server.settled();
    expect(server.get(configmaps, 'default', 'fixture')).toBeDefined();
  });

  it('Foreground: the owner gets foregroundDeletion and is DELETED only after its blocking dependents', async () => {
    server = await FakeKubeApiServer.start();
    const d = server.create(deployments, deployment('web', ''));
    server.create(replicasets, {
      ...meta('web-1', [ownedBy(d)], { finalizers: ['example.com/drain'] }),
    });
    server.create(replicasets, { ...meta('web-2', [ownedBy(d, false)]) });
    const ws = watch(server, '/apis/apps/v1/deployments?resourceVersion=3');
    const wr = watch(server, '/apis/apps/v1/replicasets?resourceVersion=3');
    await Promise.all([ws.responded, wr.responded]);
    const r = await request(server, 'DELETE', `${DEPLOYS}/web`, {
      propagationPolicy: 'Foreground',
    });
    expect(r.status).toBe(200);
    expect(r.json.metadata).toMatchObject({ finalizers: ['foregroundDeletion'] });
    expect(r.json.metadata.deletionTimestamp).toBeDefined();
    await server.settled();
    // web-1 is terminating (its own finalizer) and blocks its owner; web-2 did not block.
    expect(server.get(replicasets, 'default', 'web-1')?.metadata?.deletionTimestamp).toBeDefined();
    expect(server.get(replicasets, 'default', 'web-2')).toBeUndefined();
    expect(server.get(deployments, 'default', 'web')?.metadata?.finalizers).toEqual([
      'foregroundDeletion',
    ]);
    await request(
      server,
      'PATCH',
      '/apis/apps/v1/namespaces/default/replicasets/web-1',
      { metadata: { finalizers: null } },
      { contentType: 'application/merge-patch+json' },
    );
    await server.settled();
    expect(server.get(deployments, 'default', 'web')).toBeUndefined();
    const owner = await ws.waitForEvents(3);
    expect(owner.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    const rs = await wr.waitForEvents(4);
    expect(rs.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'MODIFIED web-1', // terminating: its finalizer holds it
      'DELETED web-2',
      'MODIFIED web-1', // the finalizer removed
      'DELETED web-1',
    ]);
    const rsGone = rs.find((e) => e.type === 'DELETED' && e.object.metadata.name === 'web-1');
    expect(Number(owner[2].object.metadata.resourceVersion)).toBeGreaterThan(
      Number(rsGone.object.metadata.resourceVersion),
    );
    ws.close();
    wr.close();
  });

  it('owners that own each other: a Foreground deletion breaks the cycle and both go', async () => {
    server = await FakeKubeApiServer.start();
    const a = server.create(configmaps, { metadata: { name: 'a', namespace: 'default' } });
    const b = server.create(configmaps, { ...meta('b', [ownedBy(a)]) });
    server.update(configmaps, { ...a, metadata: { ...a.metadata, ownerReferences: [ownedBy(b)] } });
    server.delete(configmaps, 'default', 'a', { propagationPolicy: 'Foreground' });
    await server.settled();
    expect(server.objects(configmaps)).toEqual([]);
  });

  it('Orphan: the dependents stay with their references to the owner removed, then the owner goes', async () => {
    server = await FakeKubeApiServer.start();
    const { d } = family();
    const other = server.create(configmaps, { metadata: { name: 'keep', namespace: 'default' } });
    server.create(replicasets, { ...meta('web-2', [ownedBy(d), ownedBy(other, false)]) });
    const r = await request(server, 'DELETE', `${DEPLOYS}/web?propagationPolicy=Orphan`);
    expect(r.json.metadata.finalizers).toEqual(['orphan']);
    await server.settled();
    expect(server.get(deployments, 'default', 'web')).toBeUndefined();
    expect(server.get(replicasets, 'default', 'web-1')?.metadata?.ownerReferences).toBeUndefined();
    expect(
      server.get(replicasets, 'default', 'web-2')?.metadata?.ownerReferences?.map((o) => o.name),
    ).toEqual(['keep']);
    expect(server.objects(pods)).toHaveLength(2);
  });

  it('batch/v1 Jobs orphan by default (with the warning kube-apiserver sends)', async () => {
    server = await FakeKubeApiServer.start();
    const job = server.create(jobs, { metadata: { name: 'batch', namespace: 'default' } });
    server.create(pods, pod('batch-x', '', meta('batch-x', [ownedBy(job)])));
    const r = await request(server, 'DELETE', '/apis/batch/v1/namespaces/default/jobs/batch');
    expect(r.headers.warning).toMatch(/^299 - "child pods are preserved by default/);
    await server.settled();
    expect(server.get(jobs, 'default', 'batch')).toBeUndefined();
    expect(server.get(pods, 'default', 'batch-x')?.metadata?.ownerReferences).toBeUndefined();
  });

  it('server.update and server.delete keep the finalizer rules; force removes at once', async () => {
    server = await FakeKubeApiServer.start();
    const x = server.create(configmaps, {
      metadata: { name: 'x', namespace: 'default', finalizers: ['example.com/a'] },
    });
    const terminating = server.delete(configmaps, 'default', 'x');
    expect(terminating?.metadata?.deletionTimestamp).toBeDefined();
    const stamp = terminating?.metadata?.deletionTimestamp;
    expect(() =>
      server.update(configmaps, {
        metadata: {
          name: 'x',
          namespace: 'default',
          finalizers: ['example.com/a', 'example.com/b'],
        },
      }),
    ).toThrow(FakeKubeApiError);
    // An update without deletionTimestamp keeps it; removing the last finalizer deletes.
    const kept = server.update(configmaps, {
      metadata: { name: 'x', namespace: 'default', finalizers: ['example.com/a'] },
      data: { b: '2' },
    });
    expect(kept.metadata?.deletionTimestamp).toBe(stamp);
    server.update(configmaps, { metadata: { name: 'x', namespace: 'default' } });
    expect(server.get(configmaps, 'default', 'x')).toBeUndefined();
    server.create(configmaps, { ...x, metadata: { ...x.metadata, resourceVersion: undefined } });
    expect(server.delete(configmaps, 'default', 'x', { force: true })?.metadata?.name).toBe('x');
    expect(server.get(configmaps, 'default', 'x')).toBeUndefined();
  });
});
