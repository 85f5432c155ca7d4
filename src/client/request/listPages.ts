import { WatchError } from '../../WatchError.js';
import type { Cluster, ListOptions, ListResult } from '../../types.js';
import { linkedAbort } from './linkedAbort.js';
import { listPageQuery } from './listPageQuery.js';
import { peekContinueToken } from './peekContinueToken.js';
import { requestText } from './requestText.js';

/** What one list page gave, once decoded. */
export interface DecodedPage {
  /** The page's resourceVersion (that of the first page is the list's). */
  resourceVersion: string | undefined;
  /** The continue token of the next page; absent or empty on the last. */
  continue: string | undefined;
}

/** One list, as {@link listPages} pages through it. */
export interface ListPagesRequest<T> {
  /** The resource path, validated and encoded by the caller. */
  path: string;
  /** Selectors and the resourceVersion asked for (first page), and `logger`. */
  options: ListOptions;
  /** The page size (0: no paging). */
  limit: number;
  /** The Accept header (plain JSON when absent). */
  accept?: string;
  /** The largest page read: a server cannot make a list take unbounded memory per page. */
  maxPageBytes: number;
  /**
   * Decodes one page (its parsed JSON), pushing its items onto `items`; throws a
   * {@link WatchError} for a page that is not a list. `token` is the continue token the page
   * was asked with (none on the first page, which alone must carry a resourceVersion).
   */
  decodePage(page: any, token: string | undefined, items: T[]): DecodedPage;
}

/**
 * The one list loop of kube-rx, under `fromList` (and the relists of the resumed pipeline) and
 * the command's lists of Tables: it follows continue tokens page by page and asks for the next
 * page as soon as its token is read from this page's head (`peekContinueToken`), so the server
 * prepares it while this one is decoded (at most one page ahead, and the request is on the wire
 * before the decode holds the thread). When a continue token has expired (410) the whole list
 * starts again, once. Failures reject with a {@link WatchError}; `signal` aborts every page in
 * flight.
 *
 * ```
 * requests: p1----p2----p3        (p2 asked for as soon as p1's head is read)
 * decodes:  ---p1----p2----p3
 * result:   ---------------(r|)   r = { items: [...p1, ...p2, ...p3], resourceVersion: p1's }
 * ```
 *
 * @example
 * const { items } = await listPages(kc, { path, options, limit: 500, maxPageBytes, decodePage }, signal);
 */
export async function listPages<T>(
  cluster: Cluster,
  request: ListPagesRequest<T>,
  signal: AbortSignal,
): Promise<ListResult<T>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await pageThrough<T>(cluster, request, signal);
    } catch (error) {
      const expiredContinue = error instanceof ExpiredContinueError;
      if (expiredContinue && attempt === 0) {
        request.options.logger?.warn(
          `the continue token of a list of ${request.path} expired; listing again from the start`,
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
  { path, options, limit, accept, maxPageBytes }: ListPagesRequest<unknown>,
  token: string | undefined,
  signal: AbortSignal,
): PageRequest {
  const { controller, unlink } = linkedAbort(signal);
  const query = listPageQuery(options, limit, token);
  let onSent!: () => void;
  const written = new Promise<void>((resolve) => (onSent = resolve));
  const answer = requestText(cluster, path, query, controller.signal, maxPageBytes, {
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

async function pageThrough<T>(
  cluster: Cluster,
  request: ListPagesRequest<T>,
  signal: AbortSignal,
): Promise<ListResult<T>> {
  const items: T[] = [];
  let resourceVersion = '';
  let page: PageRequest | undefined = requestPage(cluster, request, undefined, signal);
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
    let next = peeked ? requestPage(cluster, request, peeked, signal) : undefined;
    try {
      // A parse holds the thread: the request must be written before it starts.
      if (next) await next.sent;
      const decoded = request.decodePage(parsePage(request.path, text), token, items);
      // Every page of one list is served at the first page's resourceVersion.
      if (!token) resourceVersion = decoded.resourceVersion ?? '';
      const following = decoded.continue;
      const nextToken = typeof following === 'string' && following !== '' ? following : undefined;
      if (next?.token !== nextToken) {
        next?.abort();
        next = nextToken ? requestPage(cluster, request, nextToken, signal) : undefined;
      }
    } catch (error) {
      next?.abort();
      throw error;
    }
    page = next;
  }
  return { items, resourceVersion };
}

function parsePage(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw WatchError.parse(path, 'the list answer is not JSON', cause);
  }
}
