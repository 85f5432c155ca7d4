import type { Observable } from 'rxjs';
import type { WatchError } from '../WatchError.js';
import { objectDecoder, transformFailure } from '../shapes/decodeObject.js';
import { METADATA_LIST_ACCEPT } from '../shapes/metadataOnly.js';
import type {
  Cluster,
  KubernetesObject,
  ListOptions,
  ListResult,
  ObjectTransform,
  ResourceRef,
} from '../types.js';
import { linkedAbort } from './linkedAbort.js';
import { fromAbortable } from './fromAbortable.js';
import { listPageQuery } from './listPageQuery.js';
import { peekContinueToken } from './peekContinueToken.js';
import { requestText } from '../client/request.js';
import { resourcePath } from '../objects/resourcePath.js';
import { badRequest, parseError } from '../client/statusError.js';

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
    throw badRequest(path, `limit must be a whole number, not ${limit}`);
  }
  if (transform !== undefined && typeof transform !== 'function') {
    throw badRequest(path, `transform must be a function, not ${typeof transform}`);
  }
  const shape: PageShape = {
    limit,
    accept: resource.shape === 'metadata' ? METADATA_LIST_ACCEPT : undefined,
    decodeItem: objectDecoder(resource, transform),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return await listPages<T>(cluster, path, options, shape, signal);
    } catch (error) {
      const expiredContinue = error instanceof ExpiredContinueError;
      if (expiredContinue && attempt === 0) {
        options.logger?.warn(
          `the continue token of a list of ${path} expired; listing again from the start`,
        );
        continue;
      }
      throw expiredContinue ? error.error : error;
    }
  }
}

class ExpiredContinueError extends Error {
  constructor(readonly error: WatchError) {
    super(error.message);
  }
}

/** What every page of one list asks for and does to its items. */
interface PageShape {
  limit: number;
  accept: string | undefined;
  decodeItem: ObjectTransform | undefined;
}

/** A page asked for, that can be given up on alone (a prefetch the parsed page disowns). */
interface PageRequest {
  token: string | undefined;
  answer: ReturnType<typeof requestText>;
  /** Settles once the request is on the wire, or answered (failures included). */
  sent: Promise<unknown>;
  abort(): void;
}

function requestPage(
  cluster: Cluster,
  path: string,
  options: ListOptions,
  { limit, accept }: PageShape,
  token: string | undefined,
  signal: AbortSignal,
): PageRequest {
  const { controller, unlink } = linkedAbort(signal);
  const query = listPageQuery(options, limit, token);
  let onSent!: () => void;
  const written = new Promise<void>((resolve) => (onSent = resolve));
  const answer = requestText(cluster, path, query, controller.signal, MAX_PAGE_BYTES, {
    accept,
    onSent,
    logger: options.logger,
  });
  void answer.finally(unlink);
  return {
    token,
    answer,
    sent: Promise.race([written, answer]),
    abort: () => controller.abort(),
  };
}

async function listPages<T>(
  cluster: Cluster,
  path: string,
  options: ListOptions,
  shape: PageShape,
  signal: AbortSignal,
): Promise<ListResult<T>> {
  const { decodeItem } = shape;
  const items: T[] = [];
  let resourceVersion = '';
  let page: PageRequest | undefined = requestPage(cluster, path, options, shape, undefined, signal);
  while (page) {
    const { token } = page;
    const answer = await page.answer;
    if (!answer.ok) {
      if (token && answer.error.statusCode === 410) throw new ExpiredContinueError(answer.error);
      throw answer.error;
    }
    const text = answer.text;
    // The next page is asked for before this one is parsed: the server prepares and sends it
    // meanwhile. At most one page is ahead, so memory stays bounded by two pages.
    const peeked = peekContinueToken(text);
    let next = peeked ? requestPage(cluster, path, options, shape, peeked, signal) : undefined;
    try {
      // A parse holds the thread: the request must be written before it starts.
      if (next) await next.sent;
      const list = parsePage(path, text, token);
      if (decodeItem === undefined) for (const item of list.items) items.push(item);
      else {
        for (const item of list.items) {
          try {
            items.push(decodeItem(item));
          } catch (cause) {
            throw parseError(path, `a list item could not be decoded: ${transformFailure(cause)}`);
          }
        }
      }
      // Every page of one list is served at the first page's resourceVersion.
      if (!token) resourceVersion = list.metadata.resourceVersion;
      const following = list.metadata?.continue;
      const nextToken = typeof following === 'string' && following !== '' ? following : undefined;
      if (next?.token !== nextToken) {
        next?.abort();
        next = nextToken
          ? requestPage(cluster, path, options, shape, nextToken, signal)
          : undefined;
      }
    } catch (error) {
      next?.abort();
      throw error;
    }
    page = next;
  }
  return { items, resourceVersion };
}

function parsePage(path: string, text: string, token: string | undefined): any {
  let page: any;
  try {
    page = JSON.parse(text);
  } catch (cause) {
    throw parseError(path, 'the list answer is not JSON', cause);
  }
  // Every list the API server sends has items and, on its first page, a resourceVersion; an
  // answer without them (a broken proxy's `{}`) must not read as "everything was deleted".
  const version = page?.metadata?.resourceVersion;
  if (
    typeof page !== 'object' ||
    page === null ||
    !Array.isArray(page.items) ||
    (!token && (typeof version !== 'string' || version === ''))
  ) {
    throw parseError(path, 'the list answer is not a list');
  }
  return page;
}
