import { WatchError } from '../../WatchError.js';
import type { RequestMethod } from '../../transport/outgoingRequest.js';
import { utf8Text } from '../../transport/bytes.js';
import type { Cluster, Logger } from '../../types.js';
import { openStream } from './openStream.js';
import { readAnswer } from './readAnswer.js';

/** A JSON request (any method) and its parsed 2xx answer. */
export interface JsonRequest {
  method: RequestMethod;
  /** The resource path, validated and encoded by the caller. */
  path: string;
  query?: URLSearchParams;
  /** A JSON value to send (POST, PUT, PATCH). */
  body?: unknown;
  /** The body's media type: `application/json`, or a patch type. */
  contentType?: string;
  signal: AbortSignal;
  /** The most of the answer read (default 16 MiB). */
  limit?: number;
  /** The request's logger: hears that a plain-HTTP cluster's credentials are not sent. */
  logger?: Logger;
}

/**
 * Sends one request with a JSON body (or none) and parses the JSON of a 2xx answer: what
 * Leases and the test kit's writes use. Failures are results, as {@link openStream}'s are: a
 * non-2xx answer is its {@link WatchError} (a 409 Conflict has `statusCode` 409), a body that
 * is not JSON (or no body at all, but for a 204) is PARSE_ERROR. Never rejects.
 *
 * @example
 * const got = await requestJson(kc, { method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/a/leases/b', signal });
 * if (got.ok) console.log(got.value);
 */
export async function requestJson<T = unknown>(
  cluster: Cluster,
  { method, path, query, body, contentType, signal, limit = 16 * 1024 * 1024, logger }: JsonRequest,
): Promise<{ ok: true; status: number; value: T } | { ok: false; error: WatchError }> {
  const opened = await openStream(cluster, path, query ?? new URLSearchParams(), signal, {
    method,
    body,
    contentType,
    logger,
  });
  if (!opened.ok) return opened;
  const read = await readAnswer(opened, path, signal, limit);
  if (!read.ok) return read;
  const text = utf8Text(read.bytes);
  // Every 2xx of the API (but a 204) carries an object or a Status: an empty one is a malformed
  // answer, never an `undefined` to hand on as the object a write returned.
  if (text === '' && opened.head.statusCode !== 204) {
    return {
      ok: false,
      error: WatchError.parse(path, 'the answer has no body', undefined, opened.head.statusCode),
    };
  }
  try {
    return {
      ok: true,
      status: opened.head.statusCode,
      value: (text ? JSON.parse(text) : undefined) as T,
    };
  } catch {
    return {
      ok: false,
      error: WatchError.parse(path, 'the answer is not JSON', undefined, opened.head.statusCode),
    };
  }
}
