// Server-side apply against FakeKubeApiServer, case by case as kube-apiserver 1.32 answers
// (structured-merge-diff's ownership rules): sharing, conflicts, force, dropped fields.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { configmaps } from '../../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { get } from '../client.js';
import { apply, configMap, CONFIGMAPS, DEPLOYMENTS, owners } from './applyClient.js';

const WEB = `${DEPLOYMENTS}/web`;

/** A Deployment configuration: `spec` merged into the name and kind. */
const deploymentConfig = (spec: Record<string, unknown>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec,
});

const base = deploymentConfig({
  replicas: 2,
  selector: { matchLabels: { app: 'web' } },
  template: {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
  },
});

describe('server-side apply: ownership and conflicts', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  it('two managers applying the same value share the field, without a conflict', async () => {
    expect((await apply(server, WEB, base, 'alice')).status).toBe(201);
    const shared = await apply(server, WEB, deploymentConfig({ replicas: 2 }), 'bob');
    expect(shared.status).toBe(200);
    expect(owners(shared.json)['bob/Apply']).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(owners(shared.json)['alice/Apply']).toMatchObject({
      'f:spec': { 'f:replicas': {}, 'f:selector': {} },
    });
  });

  it('a different value for a field another manager owns is a 409 naming the manager and the field; nothing changes', async () => {
    const created = await apply(server, WEB, base, 'alice');
    const r = await apply(server, WEB, deploymentConfig({ replicas: 3 }), 'bob');
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas',
      reason: 'Conflict',
      details: {
        causes: [
          {
            type: 'FieldManagerConflict',
            message: 'conflict with "alice"',
            field: '.spec.replicas',
          },
        ],
      },
      code: 409,
    });
    const live = await get(server, WEB);
    expect(live.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    expect(live.json.spec.replicas).toBe(2);
  });

  it('several conflicts: grouped by manager in the message, one cause per field; an updater is named with its apiVersion', async () => {
    await apply(server, WEB, base, 'alice');
    // An ordinary write by "scaler" (an Update entry) takes replicas from alice.
    const patched = await get(server, `${WEB}?fieldManager=scaler`, {
      method: 'PATCH',
      body: { spec: { replicas: 4 } },
      contentType: 'application/merge-patch+json',
    });
    expect(owners(patched.json)['scaler/Update']).toEqual({ 'f:spec': { 'f:replicas': {} } });
    const config = deploymentConfig({
      replicas: 5,
      template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } },
    });
    const r = await apply(server, WEB, config, 'bob');
    expect(r.status).toBe(409);
    expect(r.json.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "alice":\n' +
        '- .spec.template.spec.containers[name="web"].image\n' +
        'conflicts with "scaler" using apps/v1:\n' +
        '- .spec.replicas',
    );
    expect(r.json.details.causes).toEqual([
      {
        type: 'FieldManagerConflict',
        message: 'conflict with "alice"',
        field: '.spec.template.spec.containers[name="web"].image',
      },
      {
        type: 'FieldManagerConflict',
        message: 'conflict with "scaler" using apps/v1',
        field: '.spec.replicas',
      },
    ]);
  });

  it('force=true takes the conflicting fields over: the other manager no longer owns them', async () => {
    await apply(server, WEB, base, 'alice');
    const r = await apply(server, WEB, deploymentConfig({ replicas: 3 }), 'bob', { force: 'true' });
    expect(r.status).toBe(200);
    expect(r.json.spec.replicas).toBe(3);
    expect(owners(r.json)['bob/Apply']).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(owners(r.json)['alice/Apply']).not.toHaveProperty(['f:spec', 'f:replicas']);
    // Alice applying her old value now conflicts with bob.
    const back = await apply(server, WEB, base, 'alice');
    expect(back.json.message).toBe(
      'Apply failed with 1 conflict: conflict with "bob": .spec.replicas',
    );
  });

  it('a field its manager stops applying is removed when no one else owns it', async () => {
    const cm = `${CONFIGMAPS}/site`;
    await apply(server, cm, configMap('site', { a: '1', b: '2' }, { tier: 'web' }), 'alice');
    const r = await apply(server, cm, configMap('site', { a: '1' }), 'alice');
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: '1' });
    expect(r.json.metadata.labels).toBeUndefined();
    expect(owners(r.json)).toEqual({ 'alice/Apply': { 'f:data': { 'f:a': {} } } });
  });

  it('a field its manager stops applying stays when another manager owns it too', async () => {
    const cm = `${CONFIGMAPS}/site`;
    await apply(server, cm, configMap('site', { a: '1', b: '2' }), 'alice');
    await apply(server, cm, configMap('site', { b: '2' }), 'bob');
    const r = await apply(server, cm, configMap('site', { a: '1' }), 'alice');
    expect(r.json.data).toEqual({ a: '1', b: '2' });
    expect(owners(r.json)).toEqual({
      'alice/Apply': { 'f:data': { 'f:a': {} } },
      'bob/Apply': { 'f:data': { 'f:b': {} } },
    });
  });

  it('an object made without managedFields: its fields belong to before-first-apply', async () => {
    server.create(configmaps, {
      metadata: { name: 'legacy', namespace: 'default' },
      data: { a: '1' },
    });
    const r = await apply(server, `${CONFIGMAPS}/legacy`, configMap('legacy', { a: '2' }), 'alice');
    expect(r.status).toBe(409);
    expect(r.json.message).toBe(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a',
    );
  });

  it('applying the same configuration again stores nothing: same resourceVersion and managedFields', async () => {
    const first = await apply(server, WEB, base, 'alice');
    const again = await apply(server, WEB, base, 'alice');
    expect(again.status).toBe(200);
    expect(again.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
    expect(again.json.metadata.managedFields).toEqual(first.json.metadata.managedFields);
    expect(again.json.metadata.generation).toBe(1);
  });
});
