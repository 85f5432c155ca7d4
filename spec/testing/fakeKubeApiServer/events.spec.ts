// core/v1 and events.k8s.io/v1 Events as two views of one store, as kube-apiserver keeps them:
// written through one API, listed and watched through the other at the same resourceVersion;
// `kubectl describe` and `kubectl events` (the real kubectl 1.32, over TLS) show them.
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { get, request, watch } from './client.js';
import { Kubectl } from './kubectl.js';

const CORE = '/api/v1/namespaces/default/events';
const EVENTS_V1 = '/apis/events.k8s.io/v1/namespaces/default/events';

jest.setTimeout(90_000);

describe('Events: core/v1 and events.k8s.io/v1, one store', () => {
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  let web: V1Pod;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    kubectl = await Kubectl.for(server);
    web = server.create(pods, {
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    });
  });
  afterEach(async () => {
    await server.stop();
    await kubectl.cleanup();
  });

  /** An events.k8s.io/v1 Event about the pod, as an event recorder writes it. */
  const recorded = (name: string, reason: string, note: string) => ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    eventTime: new Date().toISOString().replace('Z', '000Z'),
    reportingController: 'kube-rx.dev/test-operator',
    reportingInstance: 'test-operator-1',
    action: 'Reconcile',
    reason,
    note,
    type: 'Normal',
    regarding: {
      kind: 'Pod',
      apiVersion: 'v1',
      namespace: 'default',
      name: 'web',
      uid: web.metadata!.uid,
    },
  });

  it('an events.k8s.io/v1 Event is a core/v1 Event: same object, same resourceVersion, renamed fields', async () => {
    const coreWatch = watch(server, CORE);
    await coreWatch.responded;
    const created = await request(
      server,
      'POST',
      EVENTS_V1,
      recorded('web.1', 'Synced', 'pod synced'),
    );
    expect(created.status).toBe(201);
    const core = await get(server, `${CORE}/web.1`);
    expect(core.json).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: 'web.1',
        resourceVersion: created.json.metadata.resourceVersion,
        uid: created.json.metadata.uid,
      },
      involvedObject: { kind: 'Pod', name: 'web', uid: web.metadata!.uid },
      message: 'pod synced',
      reason: 'Synced',
      reportingComponent: 'kube-rx.dev/test-operator',
      reportingInstance: 'test-operator-1',
      action: 'Reconcile',
      type: 'Normal',
    });
    expect(core.json).not.toHaveProperty('note');
    const [added] = await coreWatch.waitForEvents(1);
    expect(added).toMatchObject({ type: 'ADDED', object: { message: 'pod synced' } });
    // Selectors on the involved object, as `kubectl describe` asks.
    const selected = await get(
      server,
      `${CORE}?fieldSelector=${encodeURIComponent(`involvedObject.name=web,involvedObject.namespace=default,involvedObject.uid=${web.metadata!.uid}`)}`,
    );
    expect(selected.json.items.map((e: any) => e.metadata.name)).toEqual(['web.1']);

    await request(server, 'DELETE', `${EVENTS_V1}/web.1`);
    const [, deleted] = await coreWatch.waitForEvents(2);
    expect(deleted).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'web.1' } } });
    expect((await get(server, `${CORE}/web.1`)).status).toBe(404);
    coreWatch.close();
  });

  it('a core/v1 Event lists and watches through events.k8s.io/v1', async () => {
    const v1Watch = watch(server, EVENTS_V1);
    await v1Watch.responded;
    const created = await request(server, 'POST', CORE, {
      metadata: { name: 'web.2', namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web' },
      reason: 'Killing',
      message: 'Stopping container main',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:01:00Z',
      count: 3,
      type: 'Warning',
    });
    expect(created.status).toBe(201);
    const list = await get(server, EVENTS_V1);
    expect(list.json.items).toEqual([
      expect.objectContaining({
        apiVersion: 'events.k8s.io/v1',
        regarding: { kind: 'Pod', namespace: 'default', name: 'web' },
        note: 'Stopping container main',
        deprecatedSource: { component: 'kubelet', host: 'node-1' },
        deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
        deprecatedLastTimestamp: '2026-01-01T00:01:00Z',
        deprecatedCount: 3,
        type: 'Warning',
      }),
    ]);
    const [event] = await v1Watch.waitForEvents(1);
    expect(event).toMatchObject({
      type: 'ADDED',
      object: {
        note: 'Stopping container main',
        metadata: { resourceVersion: created.json.metadata.resourceVersion },
      },
    });
    v1Watch.close();
  });

  it('an Event kube-apiserver would refuse answers 422 Invalid, per API, and nothing is stored', async () => {
    const { eventTime: _t, type: _y, ...noTime } = recorded('bad.1', 'Synced', 'x');
    const cases: Array<[string, string, object, string]> = [
      [
        'events.k8s.io without eventTime or type',
        EVENTS_V1,
        noTime,
        'Event.events.k8s.io "bad.1" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: ]',
      ],
      [
        'events.k8s.io without what a recorder writes',
        EVENTS_V1,
        { ...recorded('bad.2', '', 'x'), reportingController: undefined, action: undefined },
        'Event.events.k8s.io "bad.2" is invalid: [reportingController: Required value, action: Required value, reason: Required value]',
      ],
      [
        'events.k8s.io with a deprecated field',
        EVENTS_V1,
        { ...recorded('bad.3', 'Synced', 'x'), deprecatedCount: 2 },
        'Event.events.k8s.io "bad.3" is invalid: deprecatedCount: Invalid value: "": needs to be unset',
      ],
      [
        'core/v1 about an object in another namespace',
        CORE,
        {
          metadata: { name: 'bad.4' },
          involvedObject: { kind: 'Pod', name: 'web', namespace: 'other' },
        },
        'Event "bad.4" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
      ],
    ];
    for (const [what, path, body, message] of cases) {
      const r = await request(server, 'POST', path, body);
      expect([what, r.status, r.json.reason, r.json.message]).toEqual([
        what,
        422,
        'Invalid',
        message,
      ]);
    }
    expect((await get(server, CORE)).json.items).toEqual([]);
    // The first case with its eventTime and type back is accepted: each case failed for its change.
    expect(
      (await request(server, 'POST', EVENTS_V1, recorded('bad.1', 'Synced', 'x'))).status,
    ).toBe(201);
  });

  it('kubectl describe pod shows its Events; kubectl events lists them', async () => {
    await request(
      server,
      'POST',
      EVENTS_V1,
      recorded('web.1', 'Synced', 'pod synced by the operator'),
    );
    const describe = await kubectl.ok('describe', 'pod', 'web');
    expect(describe).toMatch(/Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/);
    expect(describe).toMatch(
      /Normal\s+Synced\s+\S+\s+kube-rx\.dev\/test-operator\s+pod synced by the operator/,
    );
    const events = await kubectl.ok('events');
    expect(events).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    expect(events).toMatch(/Normal\s+Synced\s+Pod\/web\s+pod synced by the operator/);
    // Both read the core/v1 view of what was written through events.k8s.io/v1.
    const reads = server.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/events'));
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads.every((r) => r.path === CORE)).toBe(true);
    expect(await kubectl.ok('events', '--for', 'pod/web')).toMatch(
      /Synced\s+Pod\/web\s+pod synced/,
    );
    const other = await kubectl.run('events', '--for', 'pod/other');
    expect(other.stdout).not.toMatch(/Synced/);
    const json = JSON.parse(await kubectl.ok('events', '-o', 'json'));
    expect(json.items.map((e: any) => e.message)).toEqual(['pod synced by the operator']);
  });
});
