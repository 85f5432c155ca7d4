import { createServer as createHttpServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import type { ServerHttp2Session } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server, Socket } from 'node:net';
import { Http2SessionRecorder } from './Http2SessionRecorder.js';
import { isHttp2 } from './protocol.js';
import type { Reply, Request } from './protocol.js';
import { appendBounded } from './appendBounded.js';
import type { TlsMaterial } from './tls.js';
import type { ConnectionLogEntry } from './types.js';

/** How the listener serves. */
export interface ListenerSettings {
  tls: TlsMaterial | undefined;
  /** With TLS: offer `h2` through ALPN besides HTTP/1.1. */
  http2: boolean;
  maxConcurrentStreams: number;
  recordLimit: number;
}

/**
 * The HTTP(S) server of a FakeKubeApiServer and the accounting of its sockets and HTTP/2
 * sessions: it can listen, close (destroying every socket) and listen again on the same port.
 * Both protocols reach the same handler through node's compatibility API.
 */
export class HttpListener {
  readonly connectionLog: ConnectionLogEntry[] = [];
  readonly http2: Http2SessionRecorder;
  private readonly sockets = new Map<Socket, number>();
  private readonly ids = new WeakMap<object, number>();
  private readonly idsByPort = new Map<number, number>();
  private seq = 0;
  private server: Server | undefined;

  constructor(
    private readonly settings: ListenerSettings,
    private readonly handler: (req: Request, res: Reply) => void,
    private readonly onChange: () => void,
  ) {
    this.http2 = new Http2SessionRecorder(onChange);
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  /** The id of the connection a request came on (0 if unknown). */
  connectionIdOf(req: Request): number {
    if (isHttp2(req)) return this.http2.connectionIdOf(req.stream.session!);
    return this.ids.get(req.socket) ?? 0;
  }

  /** Listens on 127.0.0.1:`port` (retrying briefly while the port is still taken); the port. */
  async listen(port: number): Promise<number> {
    const server = this.create();
    for (let attempt = 0; ; attempt++) {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
          });
        });
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 40) throw e;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  /** Stops listening, destroys every open socket and resolves once all of them closed. */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    this.http2.destroyAll();
    for (const socket of this.sockets.keys()) socket.destroy();
    await closed;
    while (this.sockets.size > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  private create(): Server {
    const { tls } = this.settings;
    const handler = this.handler as (req: Request, res: unknown) => void;
    if (tls === undefined) return this.observe(createHttpServer(handler));
    const options = {
      key: tls.server.key,
      cert: tls.server.cert,
      ca: tls.caPem,
      requestCert: tls.client !== undefined,
      rejectUnauthorized: false,
    };
    if (!this.settings.http2) return this.observe(createHttpsServer(options, handler));
    const server = createSecureServer(
      {
        ...options,
        allowHTTP1: true,
        settings: { maxConcurrentStreams: this.settings.maxConcurrentStreams },
      },
      handler,
    );
    server.on('session', (session: ServerHttp2Session) => {
      const port = session.socket.remotePort ?? -1;
      this.http2.track(session, this.idsByPort.get(port) ?? 0);
    });
    return this.observe(server);
  }

  private observe(server: Server): Server {
    server.on('connection', (socket: Socket) => this.track(socket));
    server.on('secureConnection', (socket: Socket) => {
      const id = this.idsByPort.get(socket.remotePort ?? -1);
      if (id !== undefined) this.ids.set(socket, id);
    });
    server.on('tlsClientError', (_err: Error, socket: Socket) => socket.destroy());
    return server;
  }

  private track(socket: Socket): void {
    // No Nagle, as kube-apiserver (Go sets TCP_NODELAY on every connection): node's http and
    // https servers do it, its HTTP/2 server only on the sockets that speak h2, so HTTP/1.1
    // over the ALPN port (allowHTTP1) held small writes (watch events) behind unacked ones.
    socket.setNoDelay(true);
    const id = ++this.seq;
    const remotePort = socket.remotePort ?? -1;
    this.sockets.set(socket, id);
    this.ids.set(socket, id);
    this.idsByPort.set(remotePort, id);
    appendBounded(
      this.connectionLog,
      { event: 'open', at: Date.now(), id },
      this.settings.recordLimit,
    );
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (this.idsByPort.get(remotePort) === id) this.idsByPort.delete(remotePort);
      appendBounded(
        this.connectionLog,
        { event: 'close', at: Date.now(), id },
        this.settings.recordLimit,
      );
      this.onChange();
    });
    this.onChange();
  }
}
