import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from '../errors.js';
import { DashboardFeed, type DashboardFeedOptions } from './dashboardFeed.js';
import { dashboardPage } from './page/dashboardPage.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions extends DashboardFeedOptions {
  /** The port on 127.0.0.1 (0 picks a free one). */
  port: number;
}

/** A running dashboard. */
export interface Dashboard {
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  /** The shared pipeline behind every page. */
  feed: DashboardFeed;
  /** Ends every page's event stream, stops the watches and the server. */
  close(): Promise<void>;
}

// A browser that stops reading (a sleeping laptop) is dropped past this much unsent data; its
// EventSource reconnects and starts again from a snapshot.
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
// A comment line now and then, so proxies and idle timeouts do not cut a quiet stream.
const HEARTBEAT_MS = 15_000;

/**
 * Serves the dashboard on 127.0.0.1: `/` is the page (HTML with its CSS and script inline, no
 * CDN), `/events` the Server-Sent Events stream of the one {@link DashboardFeed} every page
 * shares. Requests naming another host are refused, so a web page elsewhere cannot read the
 * cluster through a DNS-rebinding trick.
 *
 * @example
 * const dashboard = await startDashboard({ cluster, clusterName: 'prod', server, port: 0 });
 * console.log(dashboard.url);
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const feed = new DashboardFeed(options);
  const streams = new Set<ServerResponse>();
  const page = dashboardPage();
  const server = createServer((req, res) => handle(req, res, feed, streams, page, port()));
  const port = () => (server.address() as AddressInfo).port;
  await listen(server, options.port);
  feed.start();
  const heartbeat = setInterval(() => {
    for (const res of streams) res.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    url: `http://127.0.0.1:${port()}/`,
    feed,
    close: async () => {
      clearInterval(heartbeat);
      feed.stop();
      for (const res of streams) res.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new CliError(
              `port ${port} on 127.0.0.1 is in use: pick another with --port (0 picks a free one)`,
            )
          : new CliError(`cannot listen on 127.0.0.1:${port}: ${error.message}`),
      );
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function handle(
  req: IncomingMessage,
  res: ServerResponse,
  feed: DashboardFeed,
  streams: Set<ServerResponse>,
  page: string,
  port: number,
): void {
  const host = req.headers.host ?? '';
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    res.writeHead(403, { 'Content-Type': 'text/plain' }).end('forbidden host\n');
    return;
  }
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
  } else if (path === '/' || path === '/index.html') {
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      // Everything is inline and same-origin; nothing may come from elsewhere.
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:",
    });
    res.end(req.method === 'HEAD' ? undefined : page);
  } else if (path === '/events') {
    serveEvents(req, res, feed, streams);
  } else if (path === '/favicon.ico') {
    res.writeHead(204).end();
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  }
}

function serveEvents(
  req: IncomingMessage,
  res: ServerResponse,
  feed: DashboardFeed,
  streams: Set<ServerResponse>,
): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
  });
  res.write('retry: 2000\n\n');
  const { snapshot, unsubscribe } = feed.join((chunk) => {
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
    else res.write(chunk);
  });
  res.write(snapshot);
  streams.add(res);
  const leave = () => {
    unsubscribe();
    streams.delete(res);
  };
  req.on('close', leave);
  res.on('close', leave);
}
