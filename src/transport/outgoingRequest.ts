// What both protocols' exchanges (undici HTTP/1.1, node:http2) send: protocol-neutral.

/**
 * The methods kube-rx sends: reads, and the writes of Leases and the test kit.
 *
 * @example
 * const method: RequestMethod = 'PATCH';
 */
export type RequestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What an exchange sends: a request of `path` on `origin`, whatever protocol carries it.
 *
 * @example
 * const request: OutgoingRequest = { origin, method: 'GET', path: '/version', headers: {}, signal };
 */
export interface OutgoingRequest {
  origin: string;
  method: RequestMethod;
  /** The body of a write; none for a GET. */
  body?: Uint8Array;
  /** Path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  /** The TLS server name, when it is not the origin's host (`tls-server-name`). */
  servername?: string;
  /** Called once the request is being written (nothing awaiting it runs before the write). */
  onSent?: () => void;
}
