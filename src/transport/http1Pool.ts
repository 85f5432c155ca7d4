import type { Socket } from 'node:net';
import { Client, type buildConnector } from 'undici';
import type { ExchangeResult } from './body.js';
import { sendThrough } from './sendThrough.js';
import type { OutgoingRequest } from './outgoingRequest.js';
import { transportSettings } from './transportSettings.js';

/** One connection: an undici Client that never pipelines, and the socket it is on. */
interface Connection {
  client: Client;
  socket: Socket | undefined;
  /** Requests handed to it and not yet over. */
  busy: number;
}

/**
 * The HTTP/1.1 connections to one target: one undici `Client` per connection, so that kube-rx
 * knows each request's socket. A request takes an idle connection (keep-alive: list pages, logs
 * and reconnects reuse them) or opens a new one; a watch holds its connection for as long as
 * it runs. Cancelling a running request destroys its socket: the server sees the close at once
 * (undici's own abort would requeue the request and open a connection only to drop it).
 * Idle sockets are unref'd by undici and closed after `keepAliveIdleMs`.
 */
export class Http1Pool {
  private readonly connections = new Set<Connection>();
  private closing = false;

  constructor(
    private readonly origin: string,
    private readonly connector: buildConnector.connector,
  ) {}

  send(request: OutgoingRequest): Promise<ExchangeResult> {
    const connection = this.idleConnection() ?? this.open();
    connection.busy++;
    return sendThrough(connection.client, request, {
      cancel: () => {
        // A socket error (not undici's "informational" abort) fails the request for good.
        connection.socket?.destroy(new Error('the request was cancelled'));
      },
      done: () => {
        connection.busy--;
        // A connection that failed or closed is not reused (undici would not connect it again
        // after some TLS failures): the next request opens a fresh one.
        const socket = connection.socket;
        if (connection.busy === 0 && (!socket || socket.destroyed)) this.drop(connection);
      },
    });
  }

  /** Closes the pool once its requests are over. */
  close(): void {
    this.closing = true;
    for (const connection of this.connections) {
      if (connection.busy === 0) this.drop(connection);
    }
  }

  private idleConnection(): Connection | undefined {
    let idle: Connection | undefined;
    for (const connection of this.connections) {
      if (connection.busy > 0) continue;
      // Prefer one that is still connected.
      if (connection.socket && !connection.socket.destroyed) return connection;
      idle ??= connection;
    }
    return idle;
  }

  private open(): Connection {
    const s = transportSettings;
    const connection: Connection = {
      client: undefined as unknown as Client,
      socket: undefined,
      busy: 0,
    };
    connection.client = new Client(this.origin, {
      connect: (options, callback) =>
        this.connector(options, (error, socket) => {
          if (socket) connection.socket = socket;
          (callback as buildConnector.Callback)(...([error, socket] as [null, Socket]));
        }),
      headersTimeout: s.headersTimeoutMs,
      // A watch body is open for as long as the server keeps it (withBookmarks watches it).
      bodyTimeout: 0,
      keepAliveTimeout: s.keepAliveIdleMs,
      keepAliveMaxTimeout: s.keepAliveIdleMs,
      pipelining: 1,
    });
    // A connection that closed while idle is not kept: the next request opens a fresh one.
    connection.client.on('disconnect', () => {
      if (connection.busy === 0) this.drop(connection);
    });
    this.connections.add(connection);
    return connection;
  }

  private drop(connection: Connection): void {
    this.connections.delete(connection);
    connection.client.destroy().catch(() => undefined);
  }

  /** Connections open or opening, for specs and diagnostics. */
  get size(): number {
    return this.connections.size;
  }
}
