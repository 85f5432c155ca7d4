import { afterEach, describe, expect, it } from '@jest/globals';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { load, loadAll } from 'js-yaml';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { serverTableLayout, tableLayout } from '../../src/cli/watch/columns.js';
import { JsonLinesPrinter, NamePrinter, TablePrinter } from '../../src/cli/watch/printers.js';
import { YamlPrinter } from '../../src/cli/watch/YamlPrinter.js';
import {
  cellText,
  ROW_CELLS,
  TABLE_ACCEPT,
  tableColumns,
  type RowObject,
  type ServerColumns,
} from '../../src/cli/watch/serverTable.js';
import { rowEvents, tableWatchSource } from '../../src/cli/watch/tableWatchSource.js';
import { pods } from '../../src/objects/resources.js';
import type { ResourceRef, WatchEvent, WatchObjectEvent } from '../../src/types.js';
import { added, deleted, modified, pod } from '../../src/testing/marbles/builders.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import type { RawServer } from '../support/rawServer.js';
import { withoutTables } from './support/withoutTables.js';
import { cronTabColumns, cronTabRow, table } from './support/tables.js';

function rowEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', name: string, rv: string, spec: string) {
  const columns: ServerColumns = {};
  const [event] = rowEvents(
    { type, object: table(rv, [cronTabRow(name, rv, spec, 2)]) as never },
    columns,
  );
  return event as WatchObjectEvent;
}

describe("a watch event's Table", () => {
  it('becomes one event per row, its object carrying the cells, the columns kept from the first Table', () => {
    const columns: ServerColumns = {};
    const first = rowEvents(
      { type: 'ADDED', object: table('7', [cronTabRow('a', '7', '* * * * *', 1)]) as never },
      columns,
    );
    expect(columns.columns?.map((c) => c.name)).toEqual(['Name', 'Spec', 'Replicas', 'Age']);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      type: 'ADDED',
      resourceVersion: '7',
      object: { metadata: { name: 'a' } },
    });
    expect((first[0] as WatchObjectEvent).object[ROW_CELLS as never]).toEqual([
      'a',
      '* * * * *',
      1,
      '5m',
    ]);
    // Later events come without columns: the first ones stay.
    rowEvents({ type: 'MODIFIED', object: table('8', [], { columns: false }) as never }, columns);
    expect(columns.columns).toHaveLength(4);
    // The cells are not part of the object's JSON.
    expect(JSON.stringify((first[0] as WatchObjectEvent).object)).not.toContain('5m');
  });

  it('keeps a BOOKMARK, with the version of its Table, and leaves plain objects and errors alone', () => {
    const columns: ServerColumns = {};
    expect(
      rowEvents({ type: 'BOOKMARK', object: table('9', [], { columns: false }) as never }, columns),
    ).toEqual([
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } }, resourceVersion: '9' },
    ]);
    const plain = added(pod('p', '3'));
    expect(rowEvents(plain, columns)).toEqual([plain]);
    expect(columns.columns).toBeUndefined();
  });

  it('reads cells as kubectl prints them', () => {
    expect([
      cellText('x'),
      cellText(3),
      cellText(false),
      cellText(null),
      cellText(undefined),
      cellText({ a: 1 }),
    ]).toEqual(['x', '3', 'false', '<none>', '<none>', '{"a":1}']);
    expect(tableColumns({ columnDefinitions: [] })).toBeUndefined();
  });
});

describe("a table of the server's columns", () => {
  const columns = tableColumns({ columnDefinitions: cronTabColumns })!;
  const print = (
    config: { wide?: boolean; allNamespaces?: boolean; watchEvents?: boolean } = {},
  ) => {
    const lines: string[] = [];
    const printer = new TablePrinter(
      () => serverTableLayout(columns, config),
      (l) => lines.push(l),
      { watchEvents: config.watchEvents },
    );
    printer.event(rowEvent('ADDED', 'nightly', '5', '0 3 * * *'));
    printer.event(rowEvent('ADDED', 'hourly', '6', '0 * * * *'));
    printer.synced();
    printer.event(rowEvent('MODIFIED', 'hourly', '7', '5 * * * *'));
    printer.event(rowEvent('DELETED', 'nightly', '8', '0 3 * * *'));
    return lines;
  };

  it('prints the columns of priority 0, headers in upper case, deletions marked in AGE', () => {
    expect(print()).toEqual([
      'NAME      SPEC        AGE',
      'hourly    0 * * * *   5m',
      'nightly   0 3 * * *   5m',
      'hourly    5 * * * *   5m',
      'nightly   0 3 * * *   <deleted>',
    ]);
  });

  it('adds the columns of higher priority with -o wide, and NAMESPACE with -A', () => {
    expect(print({ wide: true, allNamespaces: true }).slice(0, 2)).toEqual([
      'NAMESPACE   NAME      SPEC        REPLICAS   AGE',
      'default     hourly    0 * * * *   2          5m',
    ]);
  });

  it('puts the event type in an EVENT column with --output-watch-events, instead of marking deletions', () => {
    expect(print({ watchEvents: true })).toEqual([
      'EVENT      NAME      SPEC        AGE',
      'ADDED      hourly    0 * * * *   5m',
      'ADDED      nightly   0 3 * * *   5m',
      'MODIFIED   hourly    5 * * * *   5m',
      'DELETED    nightly   0 3 * * *   5m',
    ]);
  });

  it('shows an object that came without cells by its name', () => {
    const lines: string[] = [];
    const printer = new TablePrinter(serverTableLayout(columns), (l) => lines.push(l));
    printer.synced();
    printer.event(added(pod('bare', '1')));
    expect(lines[1]).toBe('bare   <unknown>   <unknown>');
  });

  it("marks a deleted row's STATUS when the server has that column", () => {
    const status = tableColumns({
      columnDefinitions: [{ name: 'Name', format: 'name' }, { name: 'Status' }, { name: 'Age' }],
    })!;
    const layout = serverTableLayout(status);
    expect([layout.deletedColumn, layout.deletedText]).toEqual([1, 'Deleted']);
  });
});

describe('kube-rx columns for a server without Tables, -o wide', () => {
  it('adds IP, NODE, NOMINATED NODE and READINESS GATES for pods', () => {
    const layout = tableLayout('pods', '', { wide: true });
    expect(layout.headers).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    const p = pod('web', '1', {
      spec: { nodeName: 'node-1', containers: [{ name: 'c' }] },
      status: { podIP: '10.0.0.7' },
    });
    expect(layout.cells(p, Date.now()).slice(5)).toEqual([
      '10.0.0.7',
      'node-1',
      '<none>',
      '<none>',
    ]);
  });

  it('adds CONTAINERS, IMAGES and SELECTOR for deployments', () => {
    const layout = tableLayout('deployments', 'apps', { wide: true });
    expect(layout.headers.slice(5)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    const web = {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          spec: {
            containers: [
              { name: 'nginx', image: 'nginx:1' },
              { name: 'log', image: 'fluent' },
            ],
          },
        },
      },
    };
    expect(layout.cells(web, Date.now()).slice(5)).toEqual([
      'nginx,log',
      'nginx:1,fluent',
      'app=web',
    ]);
    expect([layout.deletedColumn, layout.deletedText]).toEqual([4, '<deleted>']);
  });
});

describe('json, yaml and name output', () => {
  const events = [added(pod('a', '1')), deleted(pod('a', '2'))];

  it('-o json prints one object per line, {type, object} with --output-watch-events', () => {
    const plain: string[] = [];
    const typed: string[] = [];
    const p1 = new JsonLinesPrinter((l) => plain.push(l));
    const p2 = new JsonLinesPrinter((l) => typed.push(l), true);
    for (const e of events) {
      p1.event(e);
      p2.event(e);
    }
    expect(plain.map((l) => JSON.parse(l).metadata.resourceVersion)).toEqual(['1', '2']);
    expect(typed.map((l) => JSON.parse(l))).toEqual(
      events.map((e) => ({ type: e.type, object: e.object })),
    );
  });

  it('-o yaml prints one document per event, --- between them', () => {
    let text = '';
    const printer = new YamlPrinter((t) => (text += t));
    for (const e of events) printer.event(e);
    expect(text.startsWith('apiVersion: v1\n')).toBe(true);
    expect(text.match(/^---$/gm)).toHaveLength(1);
    expect(loadAll(text)).toEqual(events.map((e) => JSON.parse(JSON.stringify(e.object))));
    let typed = '';
    new YamlPrinter((t) => (typed += t), true).event(events[1]);
    expect(load(typed)).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'a' } } });
  });

  it('-o yaml writes control characters escaped, never raw', () => {
    let text = '';
    new YamlPrinter((t) => (text += t)).event(added(pod('evil\u001b]0;x\u0007\u009b', '1')));
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect((load(text) as { metadata: { name: string } }).metadata.name).toBe(
      'evil\u001b]0;x\u0007\u009b',
    );
  });

  it('-o name prints the event type first with --output-watch-events', () => {
    const lines: string[] = [];
    const printer = new NamePrinter('pod', (l) => lines.push(l), true);
    for (const e of [...events, modified(pod('b', '3'))]) printer.event(e);
    expect(lines).toEqual(['ADDED pod/a', 'DELETED pod/a', 'MODIFIED pod/b']);
  });
});

describe('tableWatchSource over HTTP', () => {
  let server: RawServer | undefined;
  let api: FakeKubeApiServer | undefined;
  afterEach(async () => {
    await server?.stop();
    await api?.stop();
    server = api = undefined;
  });

  /** The test kit with crontabs and their printer columns (Spec; Replicas only with -o wide). */
  async function serveCronTabs(): Promise<{ api: FakeKubeApiServer; crontabs: ResourceRef }> {
    api = await FakeKubeApiServer.start();
    const crontabs = api.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      printerColumns: [
        { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
      ],
    });
    return { api, crontabs };
  }

  const cronTab = (name: string, cronSpec: string, replicas?: number) => ({
    apiVersion: 'stable.example.com/v1',
    kind: 'CronTab',
    metadata: { name, namespace: 'default' },
    spec: { cronSpec, ...(replicas !== undefined && { replicas }) },
  });

  it('asks for Tables for the list and the watch, and emits one event per row with its cells', async () => {
    const { api, crontabs } = await serveCronTabs();
    api.create(crontabs, cronTab('nightly', '0 3 * * *', 1));
    const listedAt = api.resourceVersion;
    const columns: ServerColumns = {};
    const events$ = resilientWatch(
      api.kubeConfig(),
      crontabs,
      { namespace: 'default' },
      {
        source: (cluster, ref, options) => tableWatchSource(cluster, ref, options, columns),
      },
    ).pipe(
      filter((e): e is WatchObjectEvent => e.type !== 'BOOKMARK' && e.type !== 'ERROR'),
      take(3),
      toArray(),
    );
    const changes = api.waitForRequests(2).then(() => {
      api.create(crontabs, cronTab('hourly', '0 * * * *'));
      api.update(crontabs, cronTab('nightly', '1 3 * * *', 1));
    });
    const events = await firstValueFrom(events$);
    await changes;
    expect(
      events.map(
        (e) => `${e.type} ${e.object.metadata?.name} ${(e.object as RowObject)[ROW_CELLS]?.[1]}`,
      ),
    ).toEqual(['ADDED nightly 0 3 * * *', 'ADDED hourly 0 * * * *', 'MODIFIED nightly 1 3 * * *']);
    expect(columns.columns?.map((c) => c.name)).toEqual(['Name', 'Spec', 'Replicas', 'Age']);
    expect(api.requests.map((r) => [r.path, r.headers.accept])).toEqual([
      ['/apis/stable.example.com/v1/namespaces/default/crontabs', TABLE_ACCEPT],
      ['/apis/stable.example.com/v1/namespaces/default/crontabs', TABLE_ACCEPT],
    ]);
    expect(api.requests[1].query.resourceVersion).toBe(listedAt);
  });

  it('follows continue tokens through the pages of a Table list', async () => {
    const { api, crontabs } = await serveCronTabs();
    for (const name of ['a', 'b', 'c']) api.create(crontabs, cronTab(name, 'x'));
    const listedAt = api.resourceVersion;
    const source = tableWatchSource(api.kubeConfig(), crontabs, { limit: 2 }, {});
    const listed = await firstValueFrom(source.list());
    expect(listed.resourceVersion).toBe(listedAt);
    expect(listed.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c']);
    expect(api.requests.map((r) => r.query.continue !== undefined)).toEqual([false, true]);
  });

  // kube-apiserver answers Tables for every resource; an aggregated API server, or an older
  // one, may answer the plain objects instead (the Accept header lists application/json last).
  it('takes plain JSON from a server without Table support: no columns, whole objects', async () => {
    api = await FakeKubeApiServer.start();
    api.create(pods, pod('a', ''));
    const plain = await withoutTables(api);
    server = plain.raw;
    const started = api.waitForRequests(2).then(() => api!.create(pods, pod('b', '')));
    const columns: ServerColumns = {};
    const events: WatchEvent[] = await firstValueFrom(
      resilientWatch(
        plain.kubeConfig,
        pods,
        { namespace: 'default' },
        {
          source: (cluster, ref, options) => tableWatchSource(cluster, ref, options, columns),
        },
      ).pipe(
        filter((e) => e.type === 'ADDED'),
        take(2),
        toArray(),
      ),
    );
    expect(
      events.map((e) => (e.type === 'ADDED' ? `${e.object.kind} ${e.object.metadata?.name}` : '')),
    ).toEqual(['Pod a', 'Pod b']);
    await started;
    expect(columns.columns).toBeUndefined();
    expect(plain.raw.requests.map((r) => r.headers.accept)).toEqual([TABLE_ACCEPT, TABLE_ACCEPT]);
  });
});
