import { WatchError } from '../../WatchError.js';
import type { Cluster } from '../../types.js';
// The request core of src/client/: discovery sends requests the public sources do not.
import { requestText } from '../../client/request/requestText.js';

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
  const answer = await requestText(cluster, path, query, signal, maxBytes, { accept });
  if (!answer.ok) return answer;
  try {
    return { ok: true, value: JSON.parse(answer.text) };
  } catch (cause) {
    return { ok: false, error: WatchError.parse(path, 'the answer is not JSON', cause) };
  }
}
