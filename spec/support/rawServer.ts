import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { buildKubeConfig } from '../../src/testing/fakeKubeApiServer/kubeConfig.js';
import { until } from './wait.js';

/** One request as the raw server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  rawQuery: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * A bare HTTP server on 127.0.0.1 whose every answer the test writes by hand: for the hostile
 * and malformed answers no well-behaved fake would give. It tracks its sockets.
 */
export class RawServer {
  readonly requests: SeenRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end();

  private constructor() {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      this.requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        rawQuery: url.search.slice(1),
        headers: req.headers,
      });
      this.handler(req, res);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      // A client that hangs up may only half-close (fetch sends a FIN and waits): the API server
      // ends the request then, as Go's server does, and so does this one.
      socket.once('end', () => socket.destroy());
    });
  }

  static async start(handler?: RawServer['handler']): Promise<RawServer> {
    const raw = new RawServer();
    if (handler) raw.handler = handler;
    await new Promise<void>((resolve) => raw.server.listen(0, '127.0.0.1', resolve));
    return raw;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  /** Resolves once no socket is open, or rejects after `timeoutMs`. */
  waitForNoSockets(timeoutMs = 1000): Promise<void> {
    return until(
      () => this.sockets.size === 0,
      () => `${this.sockets.size} open socket(s) to close`,
      timeoutMs,
    );
  }

  /** A KubeConfig for this server with a bearer token (client-node wants skipTLSVerify for http). */
  kubeConfig(token = 'raw-token'): KubeConfig {
    return buildKubeConfig(this.url, undefined, token, { context: 'raw' });
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Writes a watch answer: 200, chunked JSON, then these chunks, then the end. */
export function streamChunks(
  chunks: Array<string | Buffer>,
  { end = true } = {},
): RawServer['handler'] {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const chunk of chunks) res.write(chunk);
    if (end) res.end();
  };
}

/** One watch event line. */
export function line(type: string, object: unknown): string {
  return JSON.stringify({ type, object }) + '\n';
}

/** Collects every event a generator yields. */
export async function collect<E>(events: AsyncIterable<E>): Promise<E[]> {
  const out: E[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** A pod-shaped object for raw streams. */
export function rawPod(name: string, resourceVersion: string, extra: object = {}): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', resourceVersion },
    ...extra,
  };
}
