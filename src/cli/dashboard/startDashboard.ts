import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from '../CliError.js';
import { DashboardFeed, sseMessage, type DashboardFeedOptions } from './DashboardFeed.js';
import { dashboardPage } from './page/dashboardPage.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions extends Partial<DashboardFeedOptions> {
  /** The port on 127.0.0.1 (0 picks a free one). */
  port: number;
  /**
   * The clusters shown, one view each, in this order (`--context` several times); without it,
   * the one cluster of the other options.
   */
  clusters?: DashboardFeedOptions[];
  /** Where the server says what happens to browsers (a slow one skipping ahead). */
  warn?: (line: string) => void;
  /**
   * How many bytes may wait for one browser before it counts as behind and is sent nothing more
   * until it reads again (default 1 MiB): enough for a browser that is only slow for a moment
   * to get every update, little enough that 300 stuck ones cost a few hundred MB at most.
   */
  maxQueuedBytes?: number;
}

/** How the browsers are doing, for the curious and for specs. */
export interface ClientStats {
  /** Event streams open now. */
  connected: number;
  /** Of them, how many are behind: not reading, so sent nothing until they read again. */
  behind: number;
  /** Messages not sent to browsers that were behind, since the start. */
  skippedMessages: number;
  /** Times a browser that fell behind caught up by skipping to the latest state. */
  resyncs: number;
  /** Bytes queued in the server for every stream together (not yet taken by their sockets). */
  bufferedBytes: number;
}

/** A running dashboard. */
export interface Dashboard {
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  /** The shared pipeline behind every page (the first cluster's, with several). */
  feed: DashboardFeed;
  /** One pipeline per cluster, in the order of the page's views. */
  feeds: readonly DashboardFeed[];
  /** How the browsers are doing now. */
  clients(): ClientStats;
  /** Ends every page's event stream, stops the watches and the server. */
  close(): Promise<void>;
}

// A comment line now and then, so proxies and idle timeouts do not cut a quiet stream.
const HEARTBEAT_MS = 15_000;
const MAX_QUEUED_BYTES = 1024 * 1024;

/**
 * Serves the dashboard on 127.0.0.1: `/` is the page (HTML with its CSS and script inline, no
 * CDN), `/events` the Server-Sent Events stream of the {@link DashboardFeed}s every page shares,
 * one per cluster. Requests naming another host are refused, so a web page elsewhere cannot read
 * the cluster through a DNS-rebinding trick.
 *
 * A browser that stops reading (a sleeping laptop, a stuck tab) is not buffered for without
 * bound: once `maxQueuedBytes` wait for it, it is sent nothing more (what it misses is counted)
 * until everything queued has gone out; it then gets a `skipped` message saying how many it
 * missed and a fresh `snapshot` per cluster, the latest state, and goes on live. What waits for
 * it is at most `maxQueuedBytes`, one message and one snapshot per cluster, whatever the traffic.
 *
 * @example
 * const dashboard = await startDashboard({ cluster, clusterName: 'prod', server, port: 0 });
 * console.log(dashboard.url);
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const clusters = options.clusters ?? [options as DashboardFeedOptions];
  const feeds = clusters.map((cluster, view) => new DashboardFeed({ ...cluster, view }));
  const hub = new ClientHub(feeds, options.maxQueuedBytes ?? MAX_QUEUED_BYTES, options.warn);
  const page = dashboardPage(clusters.map((c) => c.clusterName));
  const server = createServer((req, res) => handle(req, res, hub, page, port()));
  const port = () => (server.address() as AddressInfo).port;
  await listen(server, options.port);
  for (const feed of feeds) feed.start();
  const heartbeat = setInterval(() => hub.broadcast(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  return {
    url: `http://127.0.0.1:${port()}/`,
    feed: feeds[0]!,
    feeds,
    clients: () => hub.stats(),
    close: async () => {
      clearInterval(heartbeat);
      for (const feed of feeds) feed.stop();
      hub.endAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** One browser's event stream. */
interface Client {
  res: ServerResponse;
  /** Messages not sent since it fell behind; undefined while it keeps up. */
  skipped: number | undefined;
}

/** Every browser's event stream, fed by every cluster's feed, each at its own pace. */
class ClientHub {
  private readonly clients = new Set<Client>();
  private skippedMessages = 0;
  private resyncs = 0;

  constructor(
    private readonly feeds: readonly DashboardFeed[],
    private readonly maxQueuedBytes: number,
    private readonly warn?: (line: string) => void,
  ) {}

  /** Starts streaming to `res`: every feed's snapshot, then what they broadcast. */
  join(res: ServerResponse): void {
    const client: Client = { res, skipped: undefined };
    const leaves: (() => void)[] = [];
    this.clients.add(client);
    for (const feed of this.feeds) {
      const { snapshot, unsubscribe } = feed.join((chunk) => this.send(client, chunk));
      leaves.push(unsubscribe);
      // The first snapshots go out whatever the socket says: a browser starts from them. Only
      // the unsubscribes are kept: a stream must not hold on to the snapshot it started from.
      res.write(snapshot);
    }
    res.on('drain', () => this.caughtUp(client));
    res.on('close', () => {
      for (const leave of leaves) leave();
      this.clients.delete(client);
    });
  }

  broadcast(chunk: string): void {
    for (const client of this.clients) this.send(client, chunk);
  }

  stats(): ClientStats {
    let behind = 0;
    let bufferedBytes = 0;
    for (const client of this.clients) {
      if (client.skipped !== undefined) behind++;
      bufferedBytes += client.res.writableLength;
    }
    const { skippedMessages, resyncs } = this;
    return { connected: this.clients.size, behind, skippedMessages, resyncs, bufferedBytes };
  }

  endAll(): void {
    for (const client of this.clients) client.res.end();
  }

  private send(client: Client, chunk: string): void {
    if (client.skipped !== undefined) {
      client.skipped++;
      this.skippedMessages++;
      return;
    }
    // A browser slow for a moment gets everything; one that has this much waiting for it is
    // behind: what is queued stays, and nothing more is, until 'drain' says it all went out.
    client.res.write(chunk);
    if (client.res.writableLength > this.maxQueuedBytes) {
      client.skipped = 0;
      if (this.stats().behind === 1) {
        this.warn?.('kube-rx: a browser fell behind; it skips to the latest state when it reads');
      }
    }
  }

  private caughtUp(client: Client): void {
    const skipped = client.skipped;
    if (skipped === undefined) return;
    client.skipped = undefined;
    this.resyncs++;
    client.res.write(sseMessage('skipped', { messages: skipped }));
    for (const feed of this.feeds) client.res.write(feed.snapshotMessage());
  }
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
  hub: ClientHub,
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
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
    });
    res.write('retry: 2000\n\n');
    hub.join(res);
  } else if (path === '/favicon.ico') {
    res.writeHead(204).end();
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  }
}
