import { WatchError } from '../WatchError.js';
import { throwError, type Observable } from 'rxjs';
import { objectDecoder } from '../shapes/objectDecoder.js';
import { METADATA_LIST_ACCEPT } from '../shapes/metadataOnly.js';
import type {
  Cluster,
  KubernetesObject,
  ListOptions,
  ListResult,
  ObjectTransform,
  ResourceRef,
} from '../types.js';
import { fromAbortable } from '../client/request/fromAbortable.js';
import { listPages, type DecodedPage } from '../client/request/listPages.js';
import { transformFailure } from '../client/watch/transformFailure.js';
import { resourcePath } from '../objects/resourcePath.js';
import { describeType, quoteValue, requestArgumentsError } from '../objects/argumentChecks.js';

/** The list options sent as query values, each a string. */
const LIST_QUERY_STRINGS = [
  'labelSelector',
  'fieldSelector',
  'resourceVersion',
  'resourceVersionMatch',
] as const;

/**
 * The page size when `limit` is not given.
 *
 * @example
 * fromList(kc, pods, { limit: DEFAULT_LIST_LIMIT * 2 });
 */
export const DEFAULT_LIST_LIMIT = 500;
/** The largest list page read: a server cannot make a list take unbounded memory per page. */
const MAX_PAGE_BYTES = 512 * 1024 * 1024;

/**
 * Lists a resource: one emission `{ items, resourceVersion }` after following `continue` tokens
 * (page size `limit`, default 500), then completes. When a continue token has expired (410) the
 * whole list starts again, once. Failures error the Observable with a {@link WatchError}.
 * Without `resourceVersion` the list is a consistent read (the most recent state, from
 * storage); `resourceVersion: '0'` asks for the API server's cache (cheaper, may be stale).
 * `transform` runs on each item as it is decoded (one that throws fails the list: PARSE_ERROR);
 * a `metadataOnly` resource asks for a PartialObjectMetadataList and yields metadata only.
 * The next page is asked for as soon as this one's continue token is read from its head, so the
 * server prepares it while this one is decoded (at most one page ahead).
 * Cold and abortable: unsubscribing aborts the pages in flight.
 *
 * ```
 * pages:     --p1--p2--p3|
 * fromList:  -----------(r|)   r = { items: [...p1, ...p2, ...p3], resourceVersion: p1's }
 * ```
 *
 * @example
 * fromList(kc, pods, { namespace: 'default', labelSelector: 'app=web' })
 *   .subscribe(({ items, resourceVersion }) => console.log(items.length, 'pods at', resourceVersion));
 */
export function fromList<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: ListOptions = {},
): Observable<ListResult<T>> {
  // Invalid arguments error the Observable with one BAD_REQUEST, read only once known objects.
  const invalid = requestArgumentsError(resource, options);
  if (invalid !== undefined) return throwError(() => invalid);
  return fromAbortable(options.signal, (signal) => listAll<T>(cluster, resource, options, signal));
}

async function listAll<T>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: ListOptions,
  signal: AbortSignal,
): Promise<ListResult<T>> {
  const { limit = DEFAULT_LIST_LIMIT, transform } = options;
  const path = resourcePath(resource, { namespace: options.namespace });
  if (!(Number.isInteger(limit) && limit >= 0)) {
    throw WatchError.badRequest(path, `limit must be a whole number, not ${quoteValue(limit)}`);
  }
  if (transform !== undefined && typeof transform !== 'function') {
    throw WatchError.badRequest(path, `transform must be a function, not ${typeof transform}`);
  }
  // A query value of another type would be sent as whatever String() makes of it.
  for (const key of LIST_QUERY_STRINGS) {
    const value = options[key];
    if (value !== undefined && typeof value !== 'string') {
      throw WatchError.badRequest(path, `${key} must be a string, not ${describeType(value)}`);
    }
  }
  const decodeItem = objectDecoder(resource, transform);
  return listPages<T>(
    cluster,
    {
      path,
      options,
      limit,
      accept: resource.shape === 'metadata' ? METADATA_LIST_ACCEPT : undefined,
      maxPageBytes: MAX_PAGE_BYTES,
      decodePage: (page, token, items) => decodeListPage(path, page, token, decodeItem, items),
    },
    signal,
  );
}

/** One page of a list: its items decoded onto `items`, its resourceVersion and continue token. */
function decodeListPage<T>(
  path: string,
  page: any,
  token: string | undefined,
  decodeItem: ObjectTransform | undefined,
  items: T[],
): DecodedPage {
  const list = checkedList(path, page, token);
  if (decodeItem === undefined) for (const item of list.items) items.push(item);
  else {
    for (const item of list.items) {
      try {
        items.push(decodeItem(item) as T);
      } catch (cause) {
        throw WatchError.parse(
          path,
          `a list item could not be decoded: ${transformFailure(cause)}`,
        );
      }
    }
  }
  return { resourceVersion: list.metadata?.resourceVersion, continue: list.metadata?.continue };
}

function checkedList(path: string, page: any, token: string | undefined): any {
  // Every list the API server sends has items and, on its first page, a resourceVersion; an
  // answer without them (a broken proxy's `{}`) must not read as "everything was deleted".
  const version = page?.metadata?.resourceVersion;
  if (
    typeof page !== 'object' ||
    page === null ||
    !Array.isArray(page.items) ||
    (!token && (typeof version !== 'string' || version === ''))
  ) {
    throw WatchError.parse(path, 'the list answer is not a list');
  }
  return page;
}
