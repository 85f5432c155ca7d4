// The status subresource of built-in kinds, as their kube-apiserver strategies keep it: writes to
// a deployment or a pod keep the stored status, writes to /status change only the status, and
// kinds without one (configmaps) answer 404 there.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { deployments } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { get, request } from './client.js';

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const web = (image: string, status?: object) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image }] },
    },
  },
  ...(status !== undefined && { status }),
});

describe('built-in kinds: the status subresource', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  it('a deployment: object writes keep the stored status, /status writes change only it', async () => {
    const created = await request(server, 'POST', DEPLOYMENTS, web('nginx:1', { replicas: 9 }));
    expect(created.status).toBe(201);
    expect(created.json).not.toHaveProperty('status');
    const status = await request(
      server,
      'PUT',
      `${DEPLOYMENTS}/web/status`,
      web('ignored', { replicas: 1 }),
    );
    expect(status.json).toMatchObject({ status: { replicas: 1 }, metadata: { generation: 1 } });
    expect(status.json.spec.template.spec.containers[0].image).toBe('nginx:1');
    const put = await request(server, 'PUT', `${DEPLOYMENTS}/web`, web('nginx:2', { replicas: 5 }));
    expect(put.json).toMatchObject({ status: { replicas: 1 }, metadata: { generation: 2 } });
    expect(server.get(deployments, 'default', 'web')?.status).toEqual({ replicas: 1 });
  });

  it('/status writes are tracked as the status subresource in managedFields (Update and Apply)', async () => {
    await request(server, 'POST', `${DEPLOYMENTS}?fieldManager=creator`, web('nginx:1'));
    await request(
      server,
      'PUT',
      `${DEPLOYMENTS}/web/status?fieldManager=kubelet`,
      web('x', { replicas: 1 }),
    );
    const applied = await request(
      server,
      'PATCH',
      `${DEPLOYMENTS}/web/status?fieldManager=controller`,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { paused: true },
        status: { readyReplicas: 1 },
      },
      { contentType: 'application/apply-patch+yaml' },
    );
    expect(applied.status).toBe(200);
    expect(applied.json.spec).not.toHaveProperty('paused');
    expect(applied.json.status).toEqual({ replicas: 1, readyReplicas: 1 });
    const entries = applied.json.metadata.managedFields.map((e: any) => [
      e.manager,
      e.operation,
      e.subresource,
    ]);
    // Ordered as the apply engine orders them (Apply entries first).
    expect(entries).toEqual([
      ['controller', 'Apply', 'status'],
      ['creator', 'Update', undefined],
      ['kubelet', 'Update', 'status'],
    ]);
    const byManager = new Map(
      applied.json.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]),
    );
    expect(byManager.get('controller')).toEqual({ 'f:status': { 'f:readyReplicas': {} } });
  });

  it('discovery lists the status subresources; a kind without one answers 404 there', async () => {
    const apps = await get(server, '/apis/apps/v1');
    const names = apps.json.resources.map((r: any) => r.name);
    expect(names).toEqual(expect.arrayContaining(['deployments/status', 'replicasets/status']));
    const core = await get(server, '/api/v1');
    expect(core.json.resources.map((r: any) => r.name)).toEqual(
      expect.arrayContaining(['pods/log', 'pods/status', 'services/status']),
    );
    expect(core.json.resources.map((r: any) => r.name)).not.toContain('configmaps/status');
    await request(server, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'c' },
    });
    const r = await get(server, '/api/v1/namespaces/default/configmaps/c/status');
    expect([r.status, r.json.reason]).toEqual([404, 'NotFound']);
  });
});
