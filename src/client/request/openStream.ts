import { WatchError } from '../../WatchError.js';
import { headerValue, type ResponseBody, type ResponseHead } from '../../transport/body.js';
import { exchange } from '../../transport/platform.js';
import type { RequestMethod } from '../../transport/outgoingRequest.js';
import type { Cluster, Logger, ResolvedConnection } from '../../types.js';
import { utf8Text } from '../../transport/bytes.js';
import { mergeHeaders } from '../../transport/mergeHeaders.js';
import { readBody } from './readBody.js';
import { resolveConnection } from '../connection/resolveConnection.js';
import { rememberCredentials } from '../connection/rememberCredentials.js';
import { answerToWatchError } from './answerToWatchError.js';

/** The most of an error body read to find its Status: error pages can be large, or endless. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** A 2xx answer with its body to read, or the request's failure as a {@link WatchError}. */
export type StreamOpenResult =
  { ok: true; body: ResponseBody; head: ResponseHead } | { ok: false; error: WatchError };

/**
 * Sends one GET of `resourcePath?query` and returns the open body of a 2xx answer, or the
 * failure as a {@link WatchError}: credentials that cannot be resolved (401, nothing sent),
 * network failures and malformed answers (SYSTEM_ERROR, 0, whatever status the answer had),
 * non-2xx answers mapped from their Status body (at most 64 KiB read) and Retry-After.
 * Redirects are never followed. Never rejects.
 */
export async function openStream(
  cluster: Cluster,
  resourcePath: string,
  query: URLSearchParams,
  signal: AbortSignal,
  {
    accept = 'application/json',
    gzip = false,
    onSent,
    method = 'GET',
    body: payload,
    contentType = 'application/json',
    logger,
  }: {
    accept?: string;
    gzip?: boolean;
    onSent?: () => void;
    method?: RequestMethod;
    /** A JSON value sent as the body (writes). */
    body?: unknown;
    contentType?: string;
    /** The request's logger: hears that a plain-HTTP cluster's credentials are not sent. */
    logger?: Logger;
  } = {},
): Promise<StreamOpenResult> {
  try {
    let connection: ResolvedConnection;
    try {
      connection = await resolveConnection(cluster, { logger });
    } catch (cause) {
      return { ok: false, error: WatchError.unauthorized(resourcePath, cause) };
    }
    if (signal.aborted) return aborted(resourcePath);
    const headers: Record<string, string> = { accept, 'user-agent': 'kube-rx' };
    if (gzip) headers['accept-encoding'] = 'gzip';
    const bytes =
      payload === undefined ? undefined : new TextEncoder().encode(JSON.stringify(payload));
    if (bytes) headers['content-type'] = contentType;
    const sent = mergeHeaders(undefined, headers, connection.headers);
    rememberCredentials(connection.server, sent);
    // A password in the proxy URL is a credential too.
    if (connection.proxy) rememberCredentials(connection.proxy, {});
    const search = query.toString();
    const result = await exchange(connection, {
      path: resourcePath + (search ? `?${search}` : ''),
      method,
      body: bytes,
      headers,
      signal,
      onSent,
    });
    if (result.kind === 'aborted') return aborted(resourcePath);
    if (result.kind === 'failed')
      return { ok: false, error: WatchError.network(resourcePath, result.cause) };
    const { head, body } = result;
    if (head.statusCode >= 200 && head.statusCode <= 299) return { ok: true, body, head };
    return { ok: false, error: await errorAnswer(head, body, resourcePath, signal) };
  } catch (cause) {
    // Every failure is a result, so that the generator never throws; this one would be a bug.
    return { ok: false, error: WatchError.network(resourcePath, cause) };
  }
}

/**
 * The {@link WatchError} of a non-2xx answer, from its status, Retry-After and the Status in
 * the start of its body. A body that breaks (bad framing, shorter than its length) makes the
 * answer malformed: SYSTEM_ERROR, not what its status claims.
 */
async function errorAnswer(
  head: ResponseHead,
  body: ResponseBody,
  resourcePath: string,
  signal: AbortSignal,
): Promise<WatchError> {
  const read = await readBody(body, MAX_ERROR_BODY_BYTES, undefined, signal);
  body.release();
  if (signal.aborted) return WatchError.aborted(resourcePath);
  if (!read.ok)
    return WatchError.network(resourcePath, read.cause, `a malformed ${head.statusCode} answer`);
  return answerToWatchError(
    {
      statusCode: head.statusCode,
      statusText: head.statusText,
      retryAfter: headerValue(head, 'retry-after'),
      body: utf8Text(read.bytes),
    },
    resourcePath,
  );
}

/** The result of a request that `signal` aborted. */
export function aborted(resourcePath: string): { ok: false; error: WatchError } {
  return { ok: false, error: WatchError.aborted(resourcePath) };
}
