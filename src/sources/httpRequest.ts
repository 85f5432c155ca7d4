import type http from 'node:http';
import fetch, { type Response } from 'node-fetch';
import type { Readable } from 'node:stream';
import { WatchError } from '../WatchError.js';
import type { Cluster, ResolvedConnection } from '../types.js';
import { agentFor, plainHeaders, resolveConnection } from './connection.js';
import { redactSecrets, rememberCredentials } from './credentials.js';
import { answerToWatchError, networkError } from './statusError.js';

/** The most of an error body read to find its Status: error pages can be large, or endless. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** An open response body, with what is needed to release its socket at once. */
export interface OpenResponse {
  /** May be paused: attach listeners, then `resume()` it (or iterate it). */
  body: Readable;
  /** Frees the socket; harmless after the body ended. */
  release(): void;
}

export type OpenResult = { ok: true; response: OpenResponse } | { ok: false; error: WatchError };

/** A request ready to send: where, with which headers (credentials included), through which agent. */
export interface PreparedRequest {
  url: string;
  resourcePath: string;
  headers: Record<string, string>;
  agent: http.Agent;
  /** The connection's node-fetch options, as resolved. */
  init: ResolvedConnection['init'];
}

/**
 * Resolves credentials afresh and builds one GET: a {@link WatchError} when they cannot be
 * resolved (401, nothing sent) or when `signal` was aborted meanwhile.
 */
export async function prepareRequest(
  cluster: Cluster,
  resourcePath: string,
  query: URLSearchParams,
  signal: AbortSignal,
  accept: string,
): Promise<{ ok: true; request: PreparedRequest } | { ok: false; error: WatchError }> {
  let resolved: ResolvedConnection;
  try {
    resolved = await resolveConnection(cluster);
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const error = new WatchError(
      redactSecrets(`could not resolve credentials: ${why} (${resourcePath})`),
      {
        errorType: 'UNAUTHORIZED_ERROR',
        statusCode: 401,
        resourcePath,
      },
    );
    return { ok: false, error };
  }
  if (signal.aborted) return aborted(resourcePath);
  const { server, init } = resolved;
  const headers = { ...plainHeaders(init.headers), accept };
  rememberCredentials(server, headers);
  const search = query.toString();
  const url = server.replace(/\/+$/, '') + resourcePath + (search ? `?${search}` : '');
  const agent = agentFor(server, init.agent);
  return { ok: true, request: { url, resourcePath, headers, agent, init } };
}

/**
 * Sends one GET for JSON (gzip accepted: it is for whole answers such as lists) and returns the
 * open body, or the failure as a {@link WatchError}: credentials that cannot be resolved (401,
 * nothing sent), network failures (0), non-2xx answers mapped from their Status body and
 * Retry-After. Redirects are never followed.
 */
export async function openRequest(
  cluster: Cluster,
  resourcePath: string,
  query: URLSearchParams,
  signal: AbortSignal,
): Promise<OpenResult> {
  const prepared = await prepareRequest(cluster, resourcePath, query, signal, 'application/json');
  return prepared.ok ? fetchPrepared(prepared.request, signal, true) : prepared;
}

/**
 * Sends a prepared request with node-fetch (the client-node 1.x transport).
 *
 * node-fetch 2 neither frees the socket when its body is destroyed nor reports some broken
 * responses (a body shorter than its Content-Length) to the body, so the request is tracked
 * through its agent: `release()` destroys it, and an incomplete response fails the body.
 */
export async function fetchPrepared(
  { url, resourcePath, headers, agent, init }: PreparedRequest,
  signal: AbortSignal,
  compress = false,
): Promise<OpenResult> {
  const tracked = trackRequests(agent);
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      method: 'GET',
      headers,
      agent: tracked.agent,
      redirect: 'manual',
      compress,
      signal: signal as never,
    });
  } catch (cause) {
    tracked.release();
    return signal.aborted
      ? aborted(resourcePath)
      : { ok: false, error: networkError(resourcePath, cause) };
  }
  const body = response.body as unknown as Readable;
  // node-fetch emits 'error' on the body when aborted; nobody may be listening by then.
  body.on('error', () => {});
  tracked.onIncomplete((error) => {
    body.destroy(error);
    // The body may be the IncomingMessage itself (see skipPassThrough).
    const incoming = tracked.response();
    if (incoming && !incoming.destroyed) incoming.destroy(error);
  });

  if (response.status < 200 || response.status > 299) {
    let text = '';
    try {
      text = await readBounded(body, MAX_ERROR_BODY_BYTES);
    } catch {
      // An unreadable error body still has its status code.
    }
    tracked.release();
    const error = answerToWatchError(
      {
        statusCode: response.status,
        statusText: response.statusText,
        retryAfter: response.headers.get('retry-after'),
        body: text,
      },
      resourcePath,
    );
    return { ok: false, error };
  }
  const incoming = compress ? undefined : tracked.response();
  return {
    ok: true,
    response: {
      body: incoming ? skipPassThrough(incoming, body) : body,
      release: tracked.release,
    },
  };
}

/**
 * node-fetch pipes the `http.IncomingMessage` into a PassThrough that it hands out as the body:
 * one more stream hop (a write, a transform, a push, an event) for every chunk, which on a watch
 * is every event. Without decompression the PassThrough adds nothing, so the body is read from
 * the IncomingMessage itself: it is unpiped, and what the PassThrough already holds is put back
 * in front of it. Falls back to node-fetch's body when the message has already ended.
 *
 * Unpiping pauses the message: a consumer that listens for 'data' must call `resume()` once its
 * listeners are attached (async iteration needs nothing).
 */
function skipPassThrough(incoming: http.IncomingMessage, piped: Readable): Readable {
  if (incoming.readableEnded || piped.readableEnded || piped.destroyed) return piped;
  incoming.unpipe(piped as unknown as NodeJS.WritableStream);
  const early: Buffer[] = [];
  for (let chunk: Buffer | null; (chunk = piped.read() as Buffer | null) !== null;)
    early.push(chunk);
  if (early.length > 0) incoming.unshift(early.length === 1 ? early[0] : Buffer.concat(early));
  incoming.on('error', () => {});
  return incoming;
}

/** The result of a request that `signal` aborted. */
export function aborted(resourcePath: string): { ok: false; error: WatchError } {
  return {
    ok: false,
    error: new WatchError(`aborted (${resourcePath})`, {
      errorType: 'SYSTEM_ERROR',
      statusCode: 0,
      resourcePath,
    }),
  };
}

/** Reads a body as text, up to `limit` bytes, then stops reading. */
export async function readBounded(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    chunks.push(buffer.subarray(0, Math.max(0, limit - size)));
    size += buffer.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface TrackedRequests {
  agent: http.Agent;
  /** The response message, once its headers arrived. */
  response(): http.IncomingMessage | undefined;
  release(): void;
  onIncomplete(handler: (error: Error) => void): void;
}

/** Wraps an agent to see the request node-fetch makes through it (and so its socket). */
function trackRequests(agent: http.Agent): TrackedRequests {
  let request: http.ClientRequest | undefined;
  let response: http.IncomingMessage | undefined;
  let incomplete: Error | undefined;
  let handler: ((error: Error) => void) | undefined;
  const fail = (error: Error) => {
    incomplete = error;
    handler?.(error);
  };
  const wrapped = Object.create(agent) as http.Agent & {
    addRequest(req: http.ClientRequest, options: unknown): void;
  };
  wrapped.addRequest = (req: http.ClientRequest, options: unknown) => {
    request = req;
    req.once('response', (res: http.IncomingMessage) => {
      response = res;
      res.once('close', () => {
        if (!res.complete) fail(new Error('the response ended before it was complete'));
      });
    });
    return (
      agent as unknown as { addRequest(req: http.ClientRequest, options: unknown): void }
    ).addRequest(req, options);
  };
  return {
    agent: wrapped,
    response: () => response,
    release: () => request?.destroy(),
    onIncomplete: (h) => {
      handler = h;
      if (incomplete) h(incomplete);
    },
  };
}
