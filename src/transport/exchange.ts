import type { ResolvedConnection } from '../types.js';
import type { ExchangeResult } from './body.js';
import { connectionsFor } from './targetConnections.js';
import { mergeHeaders } from './mergeHeaders.js';
import type { OutgoingRequest, RequestMethod } from './outgoingRequest.js';

/** One request, as the sources ask for it. */
export interface ExchangeRequest {
  /** GET when absent. */
  method?: RequestMethod;
  /** The request body (JSON for writes), sent with its length. */
  body?: Uint8Array;
  /** The path below the server's base URL and the query, encoded (`/api/v1/pods?watch=true`). */
  path: string;
  /** Headers besides the connection's own (which win for credentials). */
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Called once the request is on the wire (a list's next page is asked for before a parse). */
  onSent?: () => void;
}

/**
 * The one way kube-rx sends a request: a GET (or a write) to the resolved connection, exactly as resolved
 * (server, headers, TLS, proxy, protocol), never following a redirect. Resolves once the
 * answer's head arrived, with its body still to be read; a request that could not be made is a
 * `failed` result (never a rejection), one that `signal` aborted is `aborted`.
 *
 * @example
 * const result = await exchange(await resolveConnection(kc), { path: '/version', headers: {}, signal });
 */
export async function exchange(
  connection: ResolvedConnection,
  request: ExchangeRequest,
): Promise<ExchangeResult> {
  if (request.signal.aborted) return { kind: 'aborted' };
  try {
    const url = new URL(connection.server);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`unsupported protocol ${url.protocol}`);
    const headers = mergeHeaders(url, request.headers, connection.headers);
    const connections = connectionsFor({
      origin: url.origin,
      tls: connection.tls,
      proxy: connection.proxy,
    });
    const base = url.pathname.replace(/\/+$/, '');
    const outgoing: OutgoingRequest = {
      origin: url.origin,
      path: base + request.path,
      method: request.method ?? 'GET',
      body: request.body,
      headers,
      signal: request.signal,
      servername: connection.tls?.servername || undefined,
      onSent: request.onSent,
    };
    // HTTP/2 where the server offers it (ALPN), unless the connection says `http2: false`.
    if (url.protocol === 'https:' && connection.http2 !== false) {
      const sessions = connections.http2();
      if (sessions.protocol !== 'http/1.1') {
        const sent = await sessions.send(outgoing);
        if (sent) return sent;
      }
    }
    return await connections.http1.send(outgoing);
  } catch (cause) {
    // Options refused before anything is sent (an unparsable URL, a port out of range...).
    return request.signal.aborted ? { kind: 'aborted' } : { kind: 'failed', cause };
  }
}
