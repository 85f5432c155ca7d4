import { WatchError } from '../../WatchError.js';
import { headerValue, type ResponseBody, type ResponseHead } from '../../transport/body.js';
import { bodyText, decompress, exchange } from '../../transport/platform.js';
import type { RequestMethod } from '../../transport/outgoingRequest.js';
import type { Cluster, Logger, ResolvedConnection } from '../../types.js';
import { utf8Text } from '../../transport/bytes.js';
import { mergeHeaders } from '../../transport/mergeHeaders.js';
import { contentLength, readBody } from './readBody.js';
import { resolveConnection } from '../connection/resolveConnection.js';
import { rememberCredentials } from '../connection/rememberCredentials.js';
import { answerToWatchError } from './answerToWatchError.js';

/** The most of an error body read to find its Status: error pages can be large, or endless. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** A 2xx answer with its body to read, or the request's failure as a {@link WatchError}. */
type StreamOpenResult =
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
 * Sends one GET for a whole JSON answer (a list page; gzip accepted) and reads it, up to
 * `limit` bytes: its text, or the failure as a {@link WatchError} (a body cut short or
 * malformed is SYSTEM_ERROR). Never rejects.
 */
export async function requestText(
  cluster: Cluster,
  resourcePath: string,
  query: URLSearchParams,
  signal: AbortSignal,
  limit: number,
  { accept, onSent, logger }: { accept?: string; onSent?: () => void; logger?: Logger } = {},
): Promise<{ ok: true; text: string } | { ok: false; error: WatchError }> {
  const opened = await openStream(cluster, resourcePath, query, signal, {
    gzip: true,
    accept,
    onSent,
    logger,
  });
  if (!opened.ok) return opened;
  const read = await readAnswer(opened, resourcePath, signal, limit);
  if (!read.ok) return read;
  let bytes = read.bytes;
  const encoding = headerValue(opened.head, 'content-encoding')?.trim().toLowerCase();
  try {
    bytes = await decompress(bytes, encoding, limit);
  } catch (cause) {
    const error = WatchError.network(resourcePath, cause, 'the answer could not be decompressed');
    return { ok: false, error };
  }
  return { ok: true, text: bodyText(bytes) };
}

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
 * is not JSON is PARSE_ERROR. Never rejects.
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

/** The whole body of a 2xx answer, up to `limit` bytes; longer, broken or aborted: an error. */
async function readAnswer(
  { body, head }: { body: ResponseBody; head: ResponseHead },
  resourcePath: string,
  signal: AbortSignal,
  limit: number,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; error: WatchError }> {
  const read = await readBody(body, limit, contentLength(head), signal);
  if (signal.aborted) return aborted(resourcePath);
  if (!read.ok)
    return {
      ok: false,
      error: WatchError.network(resourcePath, read.cause, 'reading the answer failed'),
    };
  if (read.truncated) {
    const cause = new Error(`the answer is longer than ${limit} bytes`);
    return { ok: false, error: WatchError.network(resourcePath, cause) };
  }
  return { ok: true, bytes: read.bytes };
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
function aborted(resourcePath: string): { ok: false; error: WatchError } {
  return { ok: false, error: WatchError.aborted(resourcePath) };
}
