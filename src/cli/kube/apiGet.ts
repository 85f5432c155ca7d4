import type { WatchError } from '../../WatchError.js';
import type { Cluster } from '../../types.js';
// The one import of the library's transport internals in the command: requests with an Accept
// header of their own (discovery, server-side Tables) that the public sources do not send.
import { openStream, type StreamOpenResult } from '../../client/request.js';
import { networkError, parseError } from '../../client/statusError.js';

/** Plain JSON. */
export const JSON_ACCEPT = 'application/json';

/** Options of {@link apiGet}. */
export interface ApiGetConfig {
  /** The Accept header (default plain JSON). */
  accept?: string;
  /** Query parameters, URL-encoded. */
  query?: URLSearchParams;
  /** Aborts the request. */
  signal: AbortSignal;
  /** The largest answer read, in bytes: a server cannot make the command hold more. */
  maxBytes: number;
}

/**
 * One GET of `path` on the cluster, with the connection's credentials, TLS and validation, and
 * its answer parsed as JSON: the value, or the failure as a {@link WatchError} (the server's
 * Status for a non-2xx answer; SYSTEM_ERROR for a network failure, an answer that is not JSON
 * or one longer than `maxBytes`). Never rejects.
 *
 * @example
 * const answer = await apiGet(cluster, '/apis', { signal, maxBytes: 8 << 20 });
 * if (answer.ok) console.log(answer.value.groups.length);
 */
export async function apiGet(
  cluster: Cluster,
  path: string,
  { accept = JSON_ACCEPT, query = new URLSearchParams(), signal, maxBytes }: ApiGetConfig,
): Promise<{ ok: true; value: any } | { ok: false; error: WatchError }> {
  const opened: StreamOpenResult = await openStream(cluster, path, query, signal, { accept });
  if (!opened.ok) return opened;
  const read = await readAll(opened.body, maxBytes);
  if (!read.ok)
    return { ok: false, error: networkError(path, read.cause, 'reading the answer failed') };
  try {
    return { ok: true, value: JSON.parse(read.text) };
  } catch (cause) {
    return { ok: false, error: parseError(path, 'the answer is not JSON', cause) };
  }
}

/** An open streaming answer: its body, to `start` with a sink of bytes, `end` and `fail`. */
export type ApiStreamBody = Extract<StreamOpenResult, { ok: true }>['body'];

/**
 * Opens one streaming GET (a watch) with the given Accept header: the open body, or the failure
 * as a {@link WatchError}. Never rejects.
 *
 * @example
 * const opened = await openApiStream(cluster, '/api/v1/pods', query, signal, TABLE_ACCEPT);
 */
export function openApiStream(
  cluster: Cluster,
  path: string,
  query: URLSearchParams,
  signal: AbortSignal,
  accept: string,
): Promise<{ ok: true; body: ApiStreamBody } | { ok: false; error: WatchError }> {
  return openStream(cluster, path, query, signal, { accept });
}

type Body = ApiStreamBody;

/** Reads a body to its end, failing (and releasing it) past `limit` bytes. */
function readAll(
  body: Body,
  limit: number,
): Promise<{ ok: true; text: string } | { ok: false; cause: unknown }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.start({
      bytes: (buffer, start, end) => {
        size += end - start;
        if (size > limit) {
          body.release();
          resolve({ ok: false, cause: new Error(`the answer is longer than ${limit} bytes`) });
          return false;
        }
        chunks.push(Buffer.from(buffer.subarray(start, end)));
        return true;
      },
      end: () => resolve({ ok: true, text: Buffer.concat(chunks, size).toString('utf8') }),
      fail: (cause) => resolve({ ok: false, cause }),
    });
  });
}
