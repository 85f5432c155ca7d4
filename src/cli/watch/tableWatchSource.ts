import { Observable } from 'rxjs';
import type { WatchError } from '../../WatchError.js';
import { linkedAbort } from '../../sources/linkedAbort.js';
import { fromAbortable } from '../../sources/fromAbortable.js';
import { DEFAULT_LIST_LIMIT } from '../../sources/fromList.js';
import { listPageQuery } from '../../sources/listPageQuery.js';
import { resourcePath } from '../../objects/resourcePath.js';
import { networkError, parseError } from '../../client/statusError.js';
import { WatchLineDecoder } from '../../sources/watchLineDecoder.js';
import { watchRequest } from '../../sources/watchRequest.js';
import { createWatchSource, type WatchSource } from '../../sources/WatchSource.js';
import type {
  Cluster,
  KubernetesObject,
  ListOptions,
  ListResult,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../../types.js';
import { apiGet, openApiStream, type ApiStreamBody } from '../kube/apiGet.js';
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
 * plain objects: `columns` stays empty and the caller formats them itself.
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
    connect: (connectOptions) => tableConnection(cluster, resource, connectOptions, columns),
    list: (listOptions) => tableList(cluster, resource, listOptions, columns),
  });
}

/** One watch connection with Tables, its events one per row. */
function tableConnection(
  cluster: Cluster,
  resource: ResourceRef,
  options: WatchOptions,
  columns: ServerColumns,
): Observable<WatchEvent> {
  return new Observable<WatchEvent>((subscriber) => {
    if (options.signal?.aborted) return subscriber.complete();
    const { controller, unlink } = linkedAbort(options.signal, () => subscriber.complete());
    let body: ApiStreamBody | undefined;
    const finish = (error?: WatchError) => {
      if (error) subscriber.next({ type: 'ERROR', error });
      subscriber.complete();
    };
    // The same validated path and query as fromWatch's; only the Accept header differs.
    const request = watchRequest(resource, options);
    if ('error' in request) {
      finish(request.error);
      return undefined;
    }
    const { path, query } = request;
    const emitRows = (event: WatchEvent): boolean => {
      for (const rowEvent of rowEvents(event, columns)) {
        subscriber.next(rowEvent);
        if (subscriber.closed) return false;
      }
      return true;
    };
    openApiStream(cluster, path, query, controller.signal, TABLE_ACCEPT).then(
      (opened) => {
        if (controller.signal.aborted) return opened.ok && opened.body.release();
        if (!opened.ok) return finish(opened.error);
        const decoder = new WatchLineDecoder<KubernetesObject>(emitRows, {
          resourcePath: path,
          maxLineBytes: options.maxLineBytes,
          logger: options.logger,
        });
        body = opened.body;
        body.start({
          bytes: (buffer, start, end) => {
            if (subscriber.closed) return false;
            if (decoder.write(buffer, start, end)) return true;
            finish();
            return false;
          },
          end: () => {
            decoder.end();
            finish();
          },
          fail: (cause) => {
            if (!controller.signal.aborted && !subscriber.closed)
              finish(networkError(path, cause, 'the watch stream failed'));
          },
        });
      },
      (cause) => finish(networkError(path, cause)),
    );
    return () => {
      unlink();
      controller.abort();
      body?.release();
    };
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

/** Lists the resource as Tables, page by page (one restart if a continue token expires). */
function tableList(
  cluster: Cluster,
  resource: ResourceRef,
  options: ListOptions,
  columns: ServerColumns,
): Observable<ListResult> {
  return fromAbortable(options.signal, (signal) =>
    listPages(cluster, resource, options, columns, signal),
  );
}

async function listPages(
  cluster: Cluster,
  resource: ResourceRef,
  options: ListOptions,
  columns: ServerColumns,
  signal: AbortSignal,
  restarted = false,
): Promise<ListResult> {
  const path = resourcePath(resource, { namespace: options.namespace });
  const items: KubernetesObject[] = [];
  let resourceVersion = '';
  let token: string | undefined;
  do {
    const query = listPageQuery(options, options.limit ?? DEFAULT_LIST_LIMIT, token);
    const got = await apiGet(cluster, path, {
      accept: TABLE_ACCEPT,
      query,
      signal,
      maxBytes: MAX_PAGE_BYTES,
    });
    if (!got.ok) {
      if (token && got.error.statusCode === 410 && !restarted)
        return listPages(cluster, resource, options, columns, signal, true);
      throw got.error;
    }
    const page = got.value;
    const version = page?.metadata?.resourceVersion;
    let pageItems: unknown;
    if (isTable(page)) {
      columns.columns ??= tableColumns(page);
      pageItems = rowObjects(page);
    } else pageItems = page?.items;
    // An answer without items or a version (a broken proxy's `{}`) must not read as "nothing".
    if (!Array.isArray(pageItems) || (!token && (typeof version !== 'string' || version === ''))) {
      throw parseError(path, 'the list answer is neither a Table nor a list');
    }
    for (const item of pageItems) items.push(item as KubernetesObject);
    if (!token) resourceVersion = version;
    const next = page?.metadata?.continue;
    token = typeof next === 'string' && next !== '' ? next : undefined;
  } while (token);
  return { items, resourceVersion };
}
