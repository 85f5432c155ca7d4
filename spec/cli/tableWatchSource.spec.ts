import { afterEach, describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { tableWatchSource } from '../../src/cli/watch/tableWatchSource.js';
import { resource } from '../../src/objects/resources.js';
import type { Logger, ObjectTransform, WatchEvent, WatchOptions } from '../../src/types.js';
import { line, RawServer } from '../support/rawServer.js';
import { table } from './support/tables.js';

// `kube-rx watch` lists and watches through tableWatchSource (server-side Tables): the options
// resilientWatch hands it (strict, transform, logger...) must mean what they mean for fromWatch.
// Each case runs both sources against one server, which answers Tables to a Table Accept header
// and plain objects otherwise, with the same objects.

const crontabs = resource('stable.example.com/v1', 'crontabs');

let server: RawServer | undefined;
afterEach(() => server?.stop());

function metadata(name: string, resourceVersion: string) {
  return { name, namespace: 'default', resourceVersion };
}

/** The object as plain JSON, or as a Table with one row carrying it (PartialObjectMetadata). */
function answer(tables: boolean, name: string, resourceVersion: string) {
  if (!tables)
    return {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: metadata(name, resourceVersion),
    };
  const object = {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: metadata(name, resourceVersion),
  };
  return table(resourceVersion, [{ cells: [name, 'x', 1, '5m'], object }]);
}

/** Lists `listed`; a watch writes `watched` (objects, or raw lines) and ends. */
async function serve(listed: string[], watched: (string | { raw: string })[]): Promise<RawServer> {
  server = await RawServer.start((req, res) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const tables = String(req.headers.accept).includes('as=Table');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (query.get('watch') !== 'true') {
      const items = listed.map((name, i) => answer(false, name, String(i + 1)));
      const list = tables
        ? table(
            '10',
            listed.map(
              (name, i) => (answer(true, name, String(i + 1)) as { rows: unknown[] }).rows[0],
            ),
          )
        : {
            kind: 'CronTabList',
            apiVersion: 'stable.example.com/v1',
            metadata: { resourceVersion: '10' },
            items,
          };
      return res.end(JSON.stringify(list));
    }
    watched.forEach((each, i) =>
      res.write(
        typeof each === 'string' ? line('ADDED', answer(tables, each, String(11 + i))) : each.raw,
      ),
    );
    res.end();
  });
  return server;
}

/** Both sources with the same options: what each lists and what each watch yields to its end. */
async function bothSources(options: WatchOptions) {
  const results = [];
  for (const source of [
    fromWatch(server!.kubeConfig(), crontabs, options),
    tableWatchSource(server!.kubeConfig(), crontabs, options, {}),
  ]) {
    const events = await lastValueFrom(source.pipe(toArray()));
    results.push(events.map(summary));
  }
  return results;
}

function summary(event: WatchEvent): string {
  if (event.type === 'ERROR') return `ERROR ${event.error.errorType}`;
  return `${event.type} ${event.object.metadata?.name} ${event.object.metadata?.labels?.seen ?? '-'}`;
}

const mark: ObjectTransform = (object: any) => {
  if (object.metadata?.name === 'bad') throw new Error('not this one');
  object.metadata.labels = { seen: 'yes' };
  return object;
};

function warnings(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: { warn: (message) => lines.push(message) }, lines };
}

describe('tableWatchSource (kube-rx watch) honours the watch options as fromWatch does', () => {
  it('runs transform on the object of each row, in the watch and in the list', async () => {
    await serve(['a', 'b'], ['c', 'd']);
    const [plain, tables] = await bothSources({ transform: mark });
    expect(plain).toEqual(['ADDED c yes', 'ADDED d yes']);
    expect(tables).toEqual(plain);
    const listed = [];
    for (const source of [
      fromWatch(server!.kubeConfig(), crontabs, { transform: mark }),
      tableWatchSource(server!.kubeConfig(), crontabs, { transform: mark }, {}),
    ]) {
      const { items } = await firstValueFrom(source.list());
      listed.push(items.map((o) => `${o.metadata?.name} ${o.metadata?.labels?.seen}`));
    }
    expect(listed).toEqual([
      ['a yes', 'b yes'],
      ['a yes', 'b yes'],
    ]);
  });

  it('skips, with a warning, an event whose transform throws', async () => {
    await serve([], ['bad', 'c']);
    const seen = warnings();
    const [plain, tables] = await bothSources({ transform: mark, logger: seen.logger });
    expect(plain).toEqual(['ADDED c yes']);
    expect(tables).toEqual(plain);
    expect(seen.lines).toHaveLength(2);
    expect(seen.lines.every((l) => l.includes('the transform threw: not this one'))).toBe(true);
  });

  it('with strict, ends the watch with PARSE_ERROR at an event whose transform throws', async () => {
    await serve([], ['c', 'bad', 'd']);
    const [plain, tables] = await bothSources({ transform: mark, strict: true });
    expect(plain).toEqual(['ADDED c yes', 'ERROR PARSE_ERROR']);
    expect(tables).toEqual(plain);
  });

  it('with strict, ends the watch with PARSE_ERROR at a line that is not a watch event', async () => {
    await serve([], ['c', { raw: 'not a watch event\n' }, 'd']);
    const [plain, tables] = await bothSources({ strict: true });
    expect(plain).toEqual(['ADDED c -', 'ERROR PARSE_ERROR']);
    expect(tables).toEqual(plain);
    const [lenientPlain, lenientTables] = await bothSources({});
    expect(lenientPlain).toEqual(['ADDED c -', 'ADDED d -']);
    expect(lenientTables).toEqual(lenientPlain);
  });

  it('fails the list with PARSE_ERROR when the transform throws on an item', async () => {
    await serve(['a', 'bad'], []);
    const failures = [];
    for (const source of [
      fromWatch(server!.kubeConfig(), crontabs, { transform: mark }),
      tableWatchSource(server!.kubeConfig(), crontabs, { transform: mark }, {}),
    ]) {
      const failure = await firstValueFrom(source.list()).catch((error: unknown) => error);
      failures.push((failure as { errorType?: string }).errorType);
    }
    expect(failures).toEqual(['PARSE_ERROR', 'PARSE_ERROR']);
  });
});
