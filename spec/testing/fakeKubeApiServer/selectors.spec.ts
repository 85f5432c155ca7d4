import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { pods } from '../../../src/objects/resources.js';
import type { KubernetesObject } from '../../../src/types.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { fieldMatcher, labelMatcher } from '../../../src/testing/fakeKubeApiServer/selectors.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get, watch } from './client.js';

const labelled = (name: string, labels: Record<string, string>): KubernetesObject =>
  pod(name, '1', { metadata: { labels } });

const objs = [
  labelled('web', { app: 'web', tier: 'front', replicas: '3' }),
  labelled('api', { app: 'api', tier: 'back' }),
  labelled('db', { app: 'db' }),
  labelled('bare', {}),
];

function select(selector: string): string[] {
  const m = labelMatcher(selector);
  return objs.filter((o) => m === undefined || m(o)).map((o) => o.metadata!.name!);
}

describe('label selectors', () => {
  it.each([
    ['', ['web', 'api', 'db', 'bare']],
    ['app=web', ['web']],
    ['app==web', ['web']],
    ['app!=web', ['api', 'db', 'bare']],
    ['app in (web, api)', ['web', 'api']],
    ['app notin (web)', ['api', 'db', 'bare']],
    ['tier', ['web', 'api']],
    ['!tier', ['db', 'bare']],
    ['app,!tier', ['db']],
    ['app in (web,api),tier=back', ['api']],
    [' app = web ', ['web']],
    ['replicas>2', ['web']],
    ['replicas<2', []],
    ['example.com/owner', []],
  ])('%j selects %j', (selector, expected) => {
    expect(select(selector)).toEqual(expected);
  });

  it.each([
    'app=',
    'app=web,',
    '=web',
    'app in ()',
    'app in (a',
    'app in a',
    'a b',
    'app=we b',
    '-bad=1',
    'a>b',
    'a=(b)',
  ])('%j is refused, except a=<empty>', (selector) => {
    if (selector === 'app=') {
      expect(select(selector)).toEqual([]);
      return;
    }
    expect(() => labelMatcher(selector)).toThrow();
  });
});

describe('field selectors', () => {
  const a = pod('a', '1', {
    metadata: { namespace: 'prod' },
    spec: { nodeName: 'n1', containers: [] },
  });
  it('matches =, ==, != on metadata.name, metadata.namespace and pod fields', () => {
    expect(fieldMatcher('metadata.name=a', 'pods')!(a)).toBe(true);
    expect(fieldMatcher('metadata.name==b', 'pods')!(a)).toBe(false);
    expect(fieldMatcher('metadata.namespace!=prod', 'pods')!(a)).toBe(false);
    expect(fieldMatcher('metadata.namespace=prod,metadata.name!=b', 'pods')!(a)).toBe(true);
    expect(fieldMatcher('spec.nodeName=n1,status.phase=Running', 'pods')!(a)).toBe(true);
    expect(fieldMatcher('metadata.name=a\\,b', 'pods')!(pod('a,b', '1'))).toBe(true);
    expect(fieldMatcher('', 'pods')).toBeUndefined();
  });

  it('refuses unknown fields and terms without an operator', () => {
    expect(() => fieldMatcher('spec.nodeName=n1', 'deployments')).toThrow(
      /not a known field selector/,
    );
    expect(() => fieldMatcher('metadata.name', 'pods')).toThrow();
    expect(() => fieldMatcher('metadata.name=a\\x', 'pods')).toThrow();
  });
});

describe('selectors over HTTP', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterAll(() => server.stop());

  it('filter lists, and watches see objects enter and leave the selection', async () => {
    server.create(pods, pod('a', '0', { metadata: { labels: { app: 'web' } } }));
    server.create(pods, pod('b', '0', { metadata: { labels: { app: 'db' } } }));
    const list = await get(
      server,
      `/api/v1/pods?labelSelector=${encodeURIComponent('app in (web)')}`,
    );
    expect(list.json.items.map((p: V1Pod) => p.metadata?.name)).toEqual(['a']);
    expect(list.json.metadata.remainingItemCount).toBeUndefined();
    const byName = await get(server, '/api/v1/pods?fieldSelector=metadata.name%3Db');
    expect(byName.json.items.map((p: V1Pod) => p.metadata?.name)).toEqual(['b']);

    const w = watch(server, '/api/v1/pods?resourceVersion=2&labelSelector=app%3Dweb');
    await w.responded;
    server.update(pods, pod('b', '0', { metadata: { labels: { app: 'web' } } }));
    server.update(pods, pod('a', '0', { metadata: { labels: { app: 'gone' } } }));
    server.update(pods, pod('a', '0', { metadata: { labels: { app: 'still-gone' } } }));
    server.update(pods, pod('b', '0', { metadata: { labels: { app: 'web', v: '2' } } }));
    server.delete(pods, 'default', 'b');
    const events = await w.waitForEvents(4);
    expect(
      events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
    ).toEqual([
      ['ADDED', 'b', '3'],
      ['DELETED', 'a', '4'],
      ['MODIFIED', 'b', '6'],
      ['DELETED', 'b', '7'],
    ]);
    expect(events[1].object.metadata.labels).toEqual({ app: 'web' });
    w.close();
  });

  it('applies the namespace and selector to initial events, sendInitialEvents and the replay', async () => {
    const before = server.resourceVersion;
    // Objects left out come both first and last, whether the order is newest or oldest first.
    server.create(pods, pod('y', '0', { metadata: { namespace: 'sel', labels: { app: 'db' } } }));
    server.create(pods, pod('x', '0', { metadata: { namespace: 'sel', labels: { app: 'web' } } }));
    server.create(pods, pod('w', '0', { metadata: { namespace: 'sel', labels: { app: 'db' } } }));
    server.create(pods, pod('z', '0', { metadata: { labels: { app: 'web' } } }));
    const path = '/api/v1/namespaces/sel/pods?labelSelector=app%3Dweb';
    const names = async (query: string): Promise<string[]> => {
      const w = watch(server, path + query);
      const events = await w.waitForEvents(query.includes('sendInitialEvents') ? 2 : 1);
      w.close();
      return events.map((e) => `${e.type} ${e.object.metadata.name ?? '-'}`);
    };
    expect(await names('')).toEqual(['ADDED x']);
    expect(
      await names(
        '&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      ),
    ).toEqual(['ADDED x', 'BOOKMARK -']);
    expect(await names(`&resourceVersion=${before}`)).toEqual(['ADDED x']);
  });

  it('answers 400 Status for a bad selector', async () => {
    for (const query of ['labelSelector=app%20in%20(', 'fieldSelector=spec.foo%3Dbar']) {
      const reply = await get(server, `/api/v1/pods?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      const w = await get(server, `/api/v1/pods?watch=true&${query}`);
      expect(w.status).toBe(400);
    }
  });
});
