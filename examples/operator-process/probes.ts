/**
 * An operator's HTTP endpoint for the kubelet's probes: `/healthz` answers 200 once the
 * controller's stores are synced (503 before), so a rollout of the operator itself waits until
 * it can act. Other routes plug in through `routes` (the seam for `/metrics`).
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startProbeServer}. */
export interface ProbeServerConfig {
  /** Where to listen (default 127.0.0.1; in a pod, 0.0.0.0 so the kubelet can reach it). */
  host?: string;
  /** The port (default 8081, controller-runtime's health port; 0: any free port). */
  port?: number;
  /** Whether the operator is ready (its stores synced, or standing by). */
  ready: () => boolean;
  /** More paths, served as given: `{ '/metrics': (req, res) => ... }`. */
  routes?: Record<string, RequestListener>;
}

/** A started probe server. */
export interface ProbeServer {
  /** `http://host:port`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the probe server; resolves once it listens. */
export async function startProbeServer(config: ProbeServerConfig): Promise<ProbeServer> {
  const { host = '127.0.0.1', port = 8081, ready, routes = {} } = config;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://probe').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (route) return route(req, res);
    if (path !== '/healthz') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const ok = ready();
    res
      .writeHead(ok ? 200 : 503, { 'content-type': 'text/plain', 'cache-control': 'no-store' })
      .end(ok ? 'ok\n' : 'stores not synced yet\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
