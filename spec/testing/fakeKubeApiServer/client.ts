// A tiny HTTP(S) client for the FakeKubeApiServer specs: node's own http, no keep-alive, so the
// server's socket accounting is deterministic.
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';

export { sleep } from '../../support/wait.js';

export interface RequestOptions {
  /** Bearer token (default 'test-token'); null sends no Authorization header. */
  token?: string | null;
  method?: string;
  /** A request body: strings and Buffers are sent as they are, other values as JSON. */
  body?: unknown;
  /** Content-Type of the body (default application/json). */
  contentType?: string;
  /** More request headers. */
  headers?: Record<string, string>;
  ca?: string;
  cert?: string;
  key?: string;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

function requestOptions(server: FakeKubeApiServer, opts: RequestOptions): https.RequestOptions {
  const token = opts.token === undefined ? 'test-token' : opts.token;
  const o: https.RequestOptions = {
    method: opts.method ?? 'GET',
    agent: false,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(opts.body !== undefined
        ? { 'content-type': opts.contentType ?? 'application/json' }
        : {}),
      ...opts.headers,
    },
  };
  if (server.url.startsWith('https')) {
    o.ca = opts.ca ?? server.caPem;
    if (opts.cert !== undefined) o.cert = opts.cert;
    if (opts.key !== undefined) o.key = opts.key;
  }
  return o;
}

function send(
  server: FakeKubeApiServer,
  path: string,
  opts: RequestOptions,
  onResponse: (res: http.IncomingMessage, req: http.ClientRequest) => void,
  onError: (e: Error) => void,
): http.ClientRequest {
  const url = server.url + path;
  const o = requestOptions(server, opts);
  const req = url.startsWith('https')
    ? https.request(url, o, (res) => onResponse(res, req))
    : http.request(url, o, (res) => onResponse(res, req));
  req.on('error', onError);
  if (opts.body === undefined) req.end();
  else {
    const body =
      typeof opts.body === 'string' || Buffer.isBuffer(opts.body)
        ? opts.body
        : JSON.stringify(opts.body);
    // node sends a DELETE body unframed unless its length is given.
    req.setHeader('content-length', Buffer.byteLength(body));
    req.end(body);
  }
  return req;
}

/** One request; resolves with the whole body (JSON-parsed when it is JSON). */
export function get(
  server: FakeKubeApiServer,
  path: string,
  opts: RequestOptions = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    send(
      server,
      path,
      opts,
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
        res.on('error', reject);
      },
      reject,
    );
  });
}

/** A request with a method and a body (objects are sent as JSON). */
export function request(
  server: FakeKubeApiServer,
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<Reply> {
  return get(server, path, { ...opts, method, body });
}

/** How a streamed response ended: `complete` when the final chunk arrived. */
export interface StreamEnd {
  complete: boolean;
}

/** A streaming GET (watch or followed logs) that records its body as it arrives. */
export class Stream {
  status = 0;
  headers: IncomingHttpHeaders = {};
  raw = '';
  /** Body chunks received (on HTTP/1.1, each write of the server's is one). */
  chunks = 0;
  readonly ended: Promise<StreamEnd>;
  readonly responded: Promise<void>;
  private req!: http.ClientRequest;
  private readonly listeners = new Set<() => void>();

  constructor(server: FakeKubeApiServer, path: string, opts: RequestOptions = {}) {
    let onEnd!: (e: StreamEnd) => void;
    let onResponded!: () => void;
    this.ended = new Promise((r) => (onEnd = r));
    this.responded = new Promise((r) => (onResponded = r));
    let complete = false;
    this.req = send(
      server,
      path,
      opts,
      (res) => {
        this.status = res.statusCode ?? 0;
        this.headers = res.headers;
        onResponded();
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          this.raw += c;
          this.chunks++;
          for (const l of [...this.listeners]) l();
        });
        res.on('end', () => (complete = true));
        res.on('error', () => undefined);
        res.on('close', () => {
          onEnd({ complete });
          for (const l of [...this.listeners]) l();
        });
      },
      () => {
        onResponded();
        onEnd({ complete: false });
      },
    );
  }

  /** Complete lines received so far. */
  get lines(): string[] {
    const parts = this.raw.split('\n');
    parts.pop();
    return parts;
  }

  /** Parsed watch events received so far. */
  get events(): any[] {
    return this.lines.map((l) => JSON.parse(l));
  }

  /** Resolves once `n` complete lines arrived (rejects after `timeoutMs`). */
  async waitForLines(n: number, timeoutMs = 3000): Promise<string[]> {
    await this.waitUntil(() => this.lines.length >= n, `${n} lines`, timeoutMs);
    return this.lines;
  }

  /** Resolves once `done()` holds, checked whenever bytes arrive (rejects after `timeoutMs`). */
  waitUntil(done: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (done()) {
          clearTimeout(timer);
          this.listeners.delete(check);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}; received: ${this.raw}`));
      }, timeoutMs);
      this.listeners.add(check);
      check();
    });
  }

  /** Resolves once `n` events arrived, with the events. */
  async waitForEvents(n: number, timeoutMs = 3000): Promise<any[]> {
    await this.waitForLines(n, timeoutMs);
    return this.events;
  }

  /** Aborts the request (destroys the client socket). */
  close(): void {
    this.req.destroy();
  }
}

/** Opens a watch: `path` gets `?watch=true` (or `&watch=true`) appended. */
export function watch(server: FakeKubeApiServer, path: string, opts: RequestOptions = {}): Stream {
  return new Stream(server, path + (path.includes('?') ? '&' : '?') + 'watch=true', opts);
}
