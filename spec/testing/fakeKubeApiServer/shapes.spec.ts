import { afterEach, describe, expect, it } from '@jest/globals';
import { deployments, pods } from '../../../src/objects/resources.js';
import { humanDuration, jsonPathValue } from '../../../src/testing/fakeKubeApiServer/columns.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../../src/testing/marbles/builders.js';
import { get, Stream } from './client.js';

const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const accept = (value: string) => ({ headers: { accept: value } });

describe('FakeKubeApiServer answer shapes', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('as=PartialObjectMetadataList for lists, as=PartialObjectMetadata for objects', async () => {
    server = await FakeKubeApiServer.start();
    const created = server.create(pods, pod('a', '', { metadata: { labels: { app: 'web' } } }));
    server.create(pods, pod('b', ''));
    const list = await get(
      server,
      '/api/v1/pods?limit=1',
      accept(`${METADATA_LIST},application/json`),
    );
    expect(list.headers['content-type']).toBe(METADATA_LIST);
    expect(list.json).toMatchObject({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '2', remainingItemCount: 1 },
    });
    expect(list.json.items).toEqual([
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: created.metadata },
    ]);
    const one = await get(server, '/api/v1/namespaces/default/pods/a', accept(METADATA));
    expect(one.json).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: created.metadata,
    });
    const full = await get(server, '/api/v1/pods', accept(`${METADATA},application/json`));
    expect(full.json.kind).toBe('PodList');
    const refused = await get(server, '/api/v1/pods', accept(METADATA));
    expect([refused.status, refused.json.reason]).toEqual([406, 'NotAcceptable']);
  });

  it('watch events carry PartialObjectMetadata objects, bookmarks and selector DELETEDs included', async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 20 });
    server.create(pods, pod('a', '', { metadata: { labels: { app: 'web' } } }));
    const w = new Stream(
      server,
      '/api/v1/pods?watch=true&allowWatchBookmarks=true&labelSelector=app%3Dweb',
      accept(METADATA),
    );
    await w.waitForEvents(1);
    expect(w.headers['content-type']).toBe(METADATA);
    server.update(pods, pod('a', '', { metadata: { labels: { app: 'db' } } }));
    await w.waitUntil(() => w.events.some((e) => e.type === 'BOOKMARK'), 'a bookmark');
    const [added, deleted] = w.events.filter((e) => e.type !== 'BOOKMARK');
    expect(added.object).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'a', resourceVersion: '1' },
    });
    expect(added.object.spec).toBeUndefined();
    expect(deleted).toMatchObject({
      type: 'DELETED',
      object: {
        kind: 'PartialObjectMetadata',
        metadata: { labels: { app: 'web' }, resourceVersion: '2' },
      },
    });
    const bookmark = w.events.find((e) => e.type === 'BOOKMARK');
    expect(bookmark.object).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { resourceVersion: '2' },
    });
    w.close();
  });

  it('as=Table lists pods with kubectl columns (Name, Ready, Status, Restarts, Age)', async () => {
    server = await FakeKubeApiServer.start();
    const status = {
      phase: 'Running',
      containerStatuses: [{ name: 'main', ready: true, restartCount: 2, image: 'x', imageID: '' }],
    };
    server.create(pods, pod('a', '', { status } as any));
    server.create(
      pods,
      pod('b', '', {
        status: {
          phase: 'Pending',
          containerStatuses: [
            {
              name: 'main',
              ready: false,
              restartCount: 0,
              image: 'x',
              imageID: '',
              state: { waiting: { reason: 'ImagePullBackOff' } },
            },
          ],
        },
      } as any),
    );
    const r = await get(server, '/api/v1/namespaces/default/pods', accept(TABLE));
    expect(r.headers['content-type']).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(r.json).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '2' },
    });
    expect(
      r.json.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name),
    ).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    expect(r.json.rows.map((row: any) => row.cells.slice(0, 4))).toEqual([
      ['a', '1/1', 'Running', '2'],
      ['b', '0/1', 'ImagePullBackOff', '0'],
    ]);
    expect(r.json.rows[0].cells[4]).toMatch(/^\d+s$/);
    expect(r.json.rows[0].object).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'a' },
    });
    const none = await get(server, '/api/v1/pods?includeObject=None', accept(TABLE));
    expect(none.json.rows[0].object).toBeUndefined();
    const objects = await get(server, '/api/v1/pods?includeObject=Object&limit=1', accept(TABLE));
    expect(objects.json.rows[0].object).toMatchObject({
      kind: 'Pod',
      spec: { containers: [{ name: 'main' }] },
    });
    expect(objects.json.metadata.continue).toEqual(expect.any(String));
    expect((await get(server, '/api/v1/pods?includeObject=All', accept(TABLE))).status).toBe(400);
  });

  it('as=Table for deployments, a CRD with printer columns (then Age), and other kinds (Name, Age)', async () => {
    server = await FakeKubeApiServer.start();
    server.create(
      deployments,
      deployment('web', '', {
        spec: { replicas: 3 } as any,
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      }),
    );
    const d = await get(server, '/apis/apps/v1/deployments', accept(TABLE));
    expect(
      d.json.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name),
    ).toEqual(['Name', 'Ready', 'Up-to-date', 'Available', 'Age']);
    expect(d.json.rows[0].cells.slice(0, 4)).toEqual(['web', '2/3', 3, 2]);
    const crontabs = server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      printerColumns: [
        { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
        {
          name: 'Ready',
          type: 'string',
          jsonPath: '.status.conditions[?(@.type=="Ready")].status',
        },
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
      ],
    });
    server.create(crontabs, {
      metadata: { name: 'n', namespace: 'default' },
      spec: { cronSpec: '0 0 * * *', replicas: 2 },
      status: {
        conditions: [
          { type: 'Synced', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
      },
    } as any);
    const ct = await get(
      server,
      '/apis/stable.example.com/v1/namespaces/default/crontabs/n',
      accept(TABLE),
    );
    expect(ct.json.columnDefinitions.map((c: any) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Spec', 'string', 0],
      ['Ready', 'string', 0],
      ['Replicas', 'integer', 1],
      ['Age', 'date', 0],
    ]);
    expect(ct.json.rows[0].cells.slice(0, 4)).toEqual(['n', '0 0 * * *', 'True', 2]);
    const cm = await get(server, '/api/v1/configmaps', accept(TABLE));
    expect(cm.json.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Age']);
  });

  it('a Table watch sends one-row Tables per event', async () => {
    server = await FakeKubeApiServer.start();
    server.create(pods, pod('a', ''));
    const w = new Stream(server, '/api/v1/pods?watch=true', accept(TABLE));
    await w.waitForEvents(1);
    server.delete(pods, 'default', 'a');
    const [added, deleted] = await w.waitForEvents(2);
    expect(added).toMatchObject({
      type: 'ADDED',
      object: { kind: 'Table', metadata: { resourceVersion: '1' } },
    });
    expect(added.object.rows).toHaveLength(1);
    expect(added.object.rows[0].cells[0]).toBe('a');
    expect(added.object.columnDefinitions[0].name).toBe('Name');
    expect(deleted.type).toBe('DELETED');
    expect(deleted.object.rows[0].object.metadata.resourceVersion).toBe('2');
    w.close();
  });

  it('prints ages and evaluates JSONPaths as kubectl does', () => {
    expect(
      [5, 119, 125, 600, 7200, 9000, 30_000, 90_000, 200_000, 86400 * 400].map((s) =>
        humanDuration(s * 1000),
      ),
    ).toEqual(['5s', '119s', '2m5s', '10m', '120m', '150m', '8h', '25h', '2d7h', '400d']);
    const obj = {
      a: {
        b: [
          { k: 'x', v: 1 },
          { k: 'y', v: 2 },
        ],
      },
    };
    expect(jsonPathValue(obj, '.a.b[1].v')).toBe(2);
    expect(jsonPathValue(obj, '.a.b[?(@.k=="x")].v')).toBe(1);
    expect(jsonPathValue(obj, '.a.c.d')).toBeUndefined();
  });
});
