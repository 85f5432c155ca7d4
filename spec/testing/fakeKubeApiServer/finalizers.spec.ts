// Deletion with finalizers over HTTP, as kube-apiserver 1.32 does it: a DELETE of an object with
// finalizers sets deletionTimestamp (MODIFIED) and the object stays until an update removes the
// last finalizer (MODIFIED, then DELETED); the rules that keep a terminating object terminating;
// finalizer lists that are not strings or not qualified names; preconditions; dryRun.
import { afterEach, describe, expect, it } from '@jest/globals';
import { configmaps, deployments } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment } from '../../../src/testing/marbles/builders.js';
import { request, watch } from './client.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { contentType: 'application/merge-patch+json' };
const JSON_PATCH = { contentType: 'application/json-patch+json' };
const cm = (name: string, finalizers?: unknown): any => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(finalizers !== undefined ? { finalizers } : {}) },
  data: { a: '1' },
});
const types = (events: any[]): string[] =>
  events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.finalizers ?? []}`);

describe('FakeKubeApiServer deletion with finalizers', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('DELETE of an object with finalizers: MODIFIED with deletionTimestamp, then DELETED once an update removes the last one', async () => {
    server = await FakeKubeApiServer.start();
    const w = watch(server, CMS);
    await w.responded;
    await request(server, 'POST', CMS, cm('x', ['example.com/a', 'example.com/b']));
    const first = await request(server, 'DELETE', `${CMS}/x`);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      kind: 'ConfigMap',
      metadata: {
        name: 'x',
        resourceVersion: '2',
        deletionGracePeriodSeconds: 0,
        finalizers: ['example.com/a', 'example.com/b'],
      },
    });
    expect(first.json.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // A second DELETE answers the same object and writes nothing.
    const second = await request(server, 'DELETE', `${CMS}/x`);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(server.resourceVersion).toBe('2');
    // An update cannot clear deletionTimestamp: it is kept.
    const cleared = await request(
      server,
      'PATCH',
      `${CMS}/x`,
      { metadata: { deletionTimestamp: null, finalizers: ['example.com/b'] } },
      MERGE,
    );
    expect(cleared.status).toBe(200);
    expect(cleared.json.metadata.deletionTimestamp).toBe(first.json.metadata.deletionTimestamp);
    expect(server.get(configmaps, 'default', 'x')?.metadata?.finalizers).toEqual(['example.com/b']);
    const last = await request(
      server,
      'PATCH',
      `${CMS}/x`,
      [{ op: 'remove', path: '/metadata/finalizers' }],
      JSON_PATCH,
    );
    expect(last.status).toBe(200);
    expect(server.get(configmaps, 'default', 'x')).toBeUndefined();
    const events = await w.waitForEvents(5);
    expect(types(events)).toEqual([
      'ADDED x example.com/a,example.com/b',
      'MODIFIED x example.com/a,example.com/b',
      'MODIFIED x example.com/b',
      'MODIFIED x ',
      'DELETED x ',
    ]);
    expect(events[1].object.metadata.deletionTimestamp).toBeDefined();
    w.close();
  });

  it('a terminating object refuses new finalizers and a write cannot set deletionTimestamp', async () => {
    server = await FakeKubeApiServer.start();
    await request(server, 'POST', CMS, cm('x', ['example.com/a']));
    await request(server, 'POST', CMS, cm('live'));
    await request(server, 'DELETE', `${CMS}/x`);
    const added = await request(
      server,
      'PATCH',
      `${CMS}/x`,
      { metadata: { finalizers: ['example.com/a', 'example.com/new'] } },
      MERGE,
    );
    expect(added.status).toBe(422);
    expect(added.json).toMatchObject({
      reason: 'Invalid',
      message:
        'ConfigMap "x" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/new"}',
      details: { name: 'x', kind: 'ConfigMap', causes: [{ field: 'metadata.finalizers' }] },
    });
    const stamped = await request(
      server,
      'PATCH',
      `${CMS}/live`,
      { metadata: { deletionTimestamp: '2030-01-02T03:04:05Z' } },
      MERGE,
    );
    expect(stamped.status).toBe(422);
    expect(stamped.json.message).toBe(
      'ConfigMap "live" is invalid: metadata.deletionTimestamp: Invalid value: 2030-01-02 03:04:05 +0000 UTC: field is immutable; may only be changed via deletion',
    );
    // A create drops deletionTimestamp: a new object is never terminating.
    const created = await request(server, 'POST', CMS, {
      ...cm('fresh'),
      metadata: { name: 'fresh', deletionTimestamp: '2030-01-02T03:04:05Z' },
    });
    expect(created.status).toBe(201);
    expect(created.json.metadata.deletionTimestamp).toBeUndefined();
    expect(server.get(configmaps, 'default', 'x')?.metadata?.finalizers).toEqual(['example.com/a']);
  });

  it('finalizers that are not strings, or not qualified names, answer what kube-apiserver answers; names without a domain warn', async () => {
    server = await FakeKubeApiServer.start();
    const numbers = await request(server, 'POST', CMS, cm('n', [1]));
    expect(numbers.status).toBe(400);
    expect(numbers.json.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string',
    );
    const notList = await request(server, 'POST', CMS, cm('s', 'example.com/a'));
    expect(notList.status).toBe(400);
    await request(server, 'POST', CMS, cm('p'));
    const patched = await request(
      server,
      'PATCH',
      `${CMS}/p`,
      { metadata: { finalizers: [{ a: 1 }] } },
      MERGE,
    );
    expect(patched.status).toBe(422);
    expect(patched.json.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal object into Go struct field ObjectMeta.metadata.finalizers of type string$/,
    );
    const badName = await request(server, 'POST', CMS, cm('b', ['Example.com/ok', 'bad_']));
    expect(badName.status).toBe(422);
    expect(badName.json.details.causes.map((c: any) => c.message)).toEqual([
      "Invalid value: \"Example.com/ok\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "Invalid value: \"bad_\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(badName.json.message).toMatch(/^ConfigMap "b" is invalid: \[metadata\.finalizers: /);
    const both = await request(server, 'POST', CMS, cm('o', ['orphan', 'foregroundDeletion']));
    expect(both.json.message).toBe(
      'ConfigMap "o" is invalid: metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    );
    expect(server.objects(configmaps).map((c) => c.metadata?.name)).toEqual(['p']);
    const warned = await request(server, 'POST', CMS, cm('w', ['cleanup', 'kubernetes']));
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe(
      '299 - "metadata.finalizers: \\"cleanup\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
    );
    const quiet = await request(server, 'POST', CMS, cm('q', ['example.com/cleanup']));
    expect(quiet.headers.warning).toBeUndefined();
  });

  it('delete preconditions (uid, resourceVersion) answer 409 with the message of kube-apiserver; DeleteOptions are validated', async () => {
    server = await FakeKubeApiServer.start();
    const d = server.create(deployments, deployment('web', ''));
    const uid = await request(server, 'DELETE', `${DEPLOYS}/web`, {
      preconditions: { uid: 'not-it' },
    });
    expect(uid.status).toBe(409);
    expect(uid.json).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on Deployment.apps "web": the UID in the precondition (not-it) does not match the UID in record (${d.metadata?.uid}). The object might have been deleted and then recreated`,
      details: { name: 'web', group: 'apps', kind: 'Deployment' },
    });
    const rv = await request(server, 'DELETE', `${DEPLOYS}/web`, {
      preconditions: { resourceVersion: '7' },
    });
    expect(rv.json.message).toBe(
      'Operation cannot be fulfilled on Deployment.apps "web": the ResourceVersion in the precondition (7) does not match the ResourceVersion in record (1). The object might have been modified',
    );
    const policy = await request(server, 'DELETE', `${DEPLOYS}/web?propagationPolicy=Sideways`);
    expect(policy.status).toBe(422);
    expect(policy.json.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = await request(server, 'DELETE', `${DEPLOYS}/web`, {
      orphanDependents: true,
      propagationPolicy: 'Orphan',
    });
    expect(both.status).toBe(422);
    expect(server.get(deployments, 'default', 'web')).toBeDefined();
    const ok = await request(server, 'DELETE', `${DEPLOYS}/web`, {
      preconditions: { uid: d.metadata?.uid, resourceVersion: '1' },
      gracePeriodSeconds: 0,
    });
    expect(ok.status).toBe(200);
    expect(server.get(deployments, 'default', 'web')).toBeUndefined();
  });

  it('orphanDependents: false on an owner left terminating answers 202, as kube-apiserver does', async () => {
    server = await FakeKubeApiServer.start();
    await request(server, 'POST', CMS, cm('x', ['example.com/a']));
    const r = await request(server, 'DELETE', `${CMS}/x`, { orphanDependents: false });
    expect(r.status).toBe(202);
    expect(r.json.metadata.deletionTimestamp).toBeDefined();
  });

  it('DELETE of a collection deletes each object as a DELETE would: finalized ones stay terminating', async () => {
    server = await FakeKubeApiServer.start();
    const labelled = (name: string, finalizers?: string[]) => ({
      ...cm(name, finalizers),
      metadata: { ...cm(name, finalizers).metadata, labels: { app: 'web' } },
    });
    await request(server, 'POST', CMS, labelled('held', ['example.com/a']));
    await request(server, 'POST', CMS, labelled('free'));
    await request(server, 'POST', CMS, cm('other'));
    const r = await request(server, 'DELETE', `${CMS}?labelSelector=app%3Dweb`);
    expect(r.status).toBe(200);
    expect(r.json.items.map((c: any) => c.metadata.name)).toEqual(['free', 'held']);
    expect(server.objects(configmaps).map((c) => c.metadata?.name)).toEqual(['held', 'other']);
    expect(server.get(configmaps, 'default', 'held')?.metadata?.deletionTimestamp).toBeDefined();
  });

  it('dryRun=All on POST, PUT, PATCH and DELETE: the answer a write would give, nothing stored, no event', async () => {
    server = await FakeKubeApiServer.start();
    await request(server, 'POST', CMS, cm('x', ['example.com/a']));
    await request(server, 'POST', CMS, cm('plain'));
    const w = watch(server, `${CMS}?resourceVersion=2`);
    await w.responded;
    const created = await request(server, 'POST', `${CMS}?dryRun=All`, cm('new'));
    expect(created.status).toBe(201);
    expect(created.json.metadata.uid).toBeDefined();
    expect(created.json.metadata.resourceVersion).toBeUndefined();
    const put = await request(server, 'PUT', `${CMS}/plain?dryRun=All`, {
      ...cm('plain'),
      data: { a: '2' },
    });
    expect(put.json.data).toEqual({ a: '2' });
    const patched = await request(
      server,
      'PATCH',
      `${CMS}/plain?dryRun=All`,
      { data: { b: '3' } },
      MERGE,
    );
    expect(patched.json.data).toEqual({ a: '1', b: '3' });
    const finalized = await request(server, 'DELETE', `${CMS}/x`, { dryRun: ['All'] });
    expect(finalized.json.metadata.deletionTimestamp).toBeDefined();
    expect(finalized.json.metadata.resourceVersion).toBe('1');
    const gone = await request(server, 'DELETE', `${CMS}/plain?dryRun=All`);
    expect(gone.json).toMatchObject({ kind: 'Status', status: 'Success' });
    const bad = await request(server, 'DELETE', `${CMS}/plain`, { dryRun: ['Some'] });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
    );
    const badPatch = await request(server, 'PATCH', `${CMS}/plain?dryRun=x`, {}, MERGE);
    expect(badPatch.json.message).toMatch(/^PatchOptions\.meta\.k8s\.io "" is invalid: dryRun/);
    expect(server.resourceVersion).toBe('2');
    expect(server.get(configmaps, 'default', 'x')?.metadata?.deletionTimestamp).toBeUndefined();
    expect(server.get(configmaps, 'default', 'plain')?.data).toEqual({ a: '1' });
    // The watch saw nothing: the next real write is its first event.
    await request(server, 'DELETE', `${CMS}/plain`);
    const [event] = await w.waitForEvents(1);
    expect(event.type).toBe('DELETED');
    expect(event.object.metadata.resourceVersion).toBe('3');
    w.close();
  });
});
