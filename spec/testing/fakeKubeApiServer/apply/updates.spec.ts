// managedFields of ordinary writes (POST, PUT, PATCH, scale): Update entries per manager, named
// by the fieldManager parameter or the User-Agent, as kube-apiserver 1.32 records them.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { configmaps } from '../../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { get, request } from '../client.js';
import { apply, configMap, CONFIGMAPS, DEPLOYMENTS, owners } from './applyClient.js';

const MERGE = 'application/merge-patch+json';

describe('managedFields of ordinary writes', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  it('POST: an Update entry for the fieldManager, a map it creates marked "."', async () => {
    const r = await request(
      server,
      'POST',
      `${CONFIGMAPS}?fieldManager=kubectl-create`,
      configMap('c', { a: '1' }, { app: 'x' }),
    );
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:data': { '.': {}, 'f:a': {} },
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        },
      },
    ]);
  });

  it('without a fieldManager the manager is the program name of the User-Agent', async () => {
    const r = await request(server, 'POST', CONFIGMAPS, configMap('c', { a: '1' }), {
      headers: { 'user-agent': 'my-operator/v0.3.1 (linux/amd64) kubernetes/abc' },
    });
    expect(Object.keys(owners(r.json))).toEqual(['my-operator/Update']);
  });

  it('PUT and PATCH: the writer takes the fields it changes; fields a write removes leave every entry', async () => {
    await request(
      server,
      'POST',
      `${CONFIGMAPS}?fieldManager=creator`,
      configMap('c', { a: '1', b: '2' }),
    );
    const live = (await get(server, `${CONFIGMAPS}/c`)).json;
    const put = await request(server, 'PUT', `${CONFIGMAPS}/c?fieldManager=editor`, {
      ...live,
      data: { a: '1', b: '3' },
    });
    expect(owners(put.json)).toEqual({
      'creator/Update': { 'f:data': { '.': {}, 'f:a': {} } },
      'editor/Update': { 'f:data': { 'f:b': {} } },
    });
    const patched = await request(
      server,
      'PATCH',
      `${CONFIGMAPS}/c?fieldManager=patcher`,
      { data: { b: null } },
      { contentType: MERGE },
    );
    expect(patched.json.data).toEqual({ a: '1' });
    // The patch removed b: editor owned nothing else, so its entry goes; patcher changed nothing
    // that remains, so it has no entry.
    expect(owners(patched.json)).toEqual({
      'creator/Update': { 'f:data': { '.': {}, 'f:a': {} } },
    });
  });

  it('an apply after an ordinary write conflicts with the updater, named with its apiVersion', async () => {
    await request(server, 'POST', `${CONFIGMAPS}?fieldManager=creator`, configMap('c', { a: '1' }));
    const r = await apply(server, `${CONFIGMAPS}/c`, configMap('c', { a: '2' }), 'applier');
    expect(r.status).toBe(409);
    expect(r.json.message).toBe(
      'Apply failed with 1 conflict: conflict with "creator" using v1: .data.a',
    );
  });

  it('a PUT may reset managedFields with [] (and keeps them when it sends none)', async () => {
    await request(server, 'POST', `${CONFIGMAPS}?fieldManager=creator`, configMap('c', { a: '1' }));
    const live = (await get(server, `${CONFIGMAPS}/c`)).json;
    const { managedFields: _dropped, ...metaWithout } = live.metadata;
    const kept = await request(server, 'PUT', `${CONFIGMAPS}/c?fieldManager=x`, {
      ...live,
      metadata: metaWithout,
    });
    expect(Object.keys(owners(kept.json))).toEqual(['creator/Update']);
    const reset = await request(server, 'PUT', `${CONFIGMAPS}/c?fieldManager=x`, {
      ...kept.json,
      metadata: { ...kept.json.metadata, managedFields: [] },
    });
    expect(reset.json.metadata.managedFields).toBeUndefined();
  });

  it('scale: an Update entry with subresource scale owning spec.replicas', async () => {
    const path = `${DEPLOYMENTS}/web`;
    await apply(
      server,
      path,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { replicas: 1 },
      },
      'alice',
    );
    const r = await request(
      server,
      'PATCH',
      `${path}/scale?fieldManager=kubectl-scale`,
      { spec: { replicas: 3 } },
      { contentType: MERGE },
    );
    expect(r.status).toBe(200);
    const live = (await get(server, path)).json;
    expect(owners(live)).toEqual({
      'kubectl-scale/Update/scale': { 'f:spec': { 'f:replicas': {} } },
    });
  });

  it("the server's own API records no manager: objects are stored as given", async () => {
    const created = server.create(configmaps, {
      metadata: { name: 'c', namespace: 'default' },
      data: { a: '1' },
    });
    expect(created.metadata?.managedFields).toBeUndefined();
  });
});
