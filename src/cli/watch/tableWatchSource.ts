import { WatchError } from '../../WatchError.js';
import type { Observable } from 'rxjs';
import { createWatchSource, DEFAULT_LIST_LIMIT, type WatchSource } from '../../index.js';
import { fromAbortable } from '../../client/request/fromAbortable.js';
import { listPages, type DecodedPage } from '../../client/request/listPages.js';
import { transformFailure } from '../../client/watch/transformFailure.js';
import { watchStreamEvents } from '../../client/watch/watchStreamEvents.js';
import { resourcePath } from '../../objects/resourcePath.js';
import type {
  Cluster,
  KubernetesObject,
  ListOptions,
  ListResult,
  ObjectTransform,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../../types.js';
import {
  isTable,
  rowObjects,
  TABLE_ACCEPT,
  tableColumns,
  type ServerColumns,
} from './serverTable.js';

/** The largest list page read (rows of object metadata are small; a broken server is not). */
const MAX_PAGE_BYTES = 256 * 1024 * 1024;

/**
 * A {@link WatchSource} that asks the server for `meta.k8s.io/v1` Tables (what `kubectl get -w`
 * prints), for its list and each watch connection, and turns every Table row into an event
 * whose object carries the row's cells (`ROW_CELLS`): the store, keys and resourceVersions of
 * the resumed pipeline work on it as on plain objects. The columns, from the first answer that
 * has them, go to `columns`. A server that answers plain JSON instead (no Table support) gives
 * plain objects: `columns` stays empty and the caller formats them itself. It is a watch like
 * `fromWatch`'s, over the same request core, list loop and line decoder: `strict`,
 * `maxLineBytes`, `logger` and `transform` (run on each row's object) mean what they mean there.
 *
 * @example
 * const columns: ServerColumns = {};
 * resilientWatch(cluster, pods, {}, { source: (c, r, o) => tableWatchSource(c, r, o, columns) });
 */
export function tableWatchSource(
  cluster: Cluster,
  resource: ResourceRef,
  options: WatchOptions,
  columns: ServerColumns,
): WatchSource {
  return createWatchSource<KubernetesObject>({
    cluster,
    resource,
    options,
    connect: (watchOptions) =>
      watchStreamEvents(
        cluster,
        resource,
        watchOptions,
        { accept: TABLE_ACCEPT, decodeObject: tableRowDecoder(watchOptions.transform) },
        (event) => rowEvents(event, columns),
      ),
    list: (listOptions) => tableList(cluster, resource, listOptions, columns),
  });
}

/**
 * The events of one decoded watch event: one per row of a Table (usually one), the event itself
 * for a plain object or an ERROR. A BOOKMARK's Table has no row to key: it keeps the version.
 */
export function rowEvents(event: WatchEvent, columns: ServerColumns): WatchEvent[] {
  if (event.type === 'ERROR' || !isTable(event.object)) return [event];
  const table = event.object;
  columns.columns ??= tableColumns(table);
  const objects = rowObjects(table);
  if (event.type === 'BOOKMARK') {
    const object: KubernetesObject = objects[0] ?? { metadata: { ...table.metadata } };
    return [{ type: 'BOOKMARK', object, resourceVersion: object.metadata?.resourceVersion }];
  }
  return objects.map((object) => ({
    type: event.type,
    object,
    resourceVersion: object.metadata?.resourceVersion,
  }));
}

/**
 * What a watch event's object goes through: `transform` on the object of each Table row (in
 * place: the Table was just decoded), or on the object itself when the server answered plain
 * JSON. Undefined without a transform, so that the plain path costs nothing.
 */
function tableRowDecoder(transform: ObjectTransform | undefined): ObjectTransform | undefined {
  if (typeof transform !== 'function') return transform;
  return (object) => {
    if (!isTable(object)) return transform(object);
    for (const row of object.rows ?? []) {
      const each = row as { object?: unknown } | null;
      if (typeof each?.object === 'object' && each.object !== null)
        each.object = transform(each.object);
    }
    return object;
  };
}

/** Lists the resource as Tables, page by page (one restart if a continue token expires). */
function tableList(
  cluster: Cluster,
  resource: ResourceRef,
  options: ListOptions,
  columns: ServerColumns,
): Observable<ListResult> {
  const path = resourcePath(resource, { namespace: options.namespace });
  return fromAbortable(options.signal, (signal) =>
    listPages<KubernetesObject>(
      cluster,
      {
        path,
        options,
        limit: options.limit ?? DEFAULT_LIST_LIMIT,
        accept: TABLE_ACCEPT,
        maxPageBytes: MAX_PAGE_BYTES,
        decodePage: (page, token, items) =>
          decodeTablePage(path, page, token, columns, options.transform, items),
      },
      signal,
    ),
  );
}

/** One list page, a Table (its rows' objects) or a plain list (its items), each transformed. */
function decodeTablePage(
  path: string,
  page: any,
  token: string | undefined,
  columns: ServerColumns,
  transform: ObjectTransform | undefined,
  items: KubernetesObject[],
): DecodedPage {
  const version = page?.metadata?.resourceVersion;
  let pageItems: unknown;
  try {
    if (isTable(page)) {
      tableRowDecoder(transform)?.(page);
      columns.columns ??= tableColumns(page);
      pageItems = rowObjects(page);
    } else {
      pageItems = page?.items;
      if (transform && Array.isArray(pageItems))
        pageItems = pageItems.map((item) => transform(item));
    }
  } catch (cause) {
    throw WatchError.parse(path, `a list item could not be decoded: ${transformFailure(cause)}`);
  }
  // An answer without items or a version (a broken proxy's `{}`) must not read as "nothing".
  if (!Array.isArray(pageItems) || (!token && (typeof version !== 'string' || version === ''))) {
    throw WatchError.parse(path, 'the list answer is neither a Table nor a list');
  }
  for (const item of pageItems) items.push(item as KubernetesObject);
  return { resourceVersion: version, continue: page?.metadata?.continue };
}
