import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { appendBounded } from './records.js';
import type { TlsMaterial } from './tls.js';
import type { ConnectionLogEntry } from './types.js';

/**
 * The HTTP(S) server of a FakeKubeApiServer and the accounting of its sockets: it can listen,
 * close (destroying every socket) and listen again on the same port.
 */
export class HttpListener {
  readonly connectionLog: ConnectionLogEntry[] = [];
  private readonly sockets = new Map<Socket, number>();
  private readonly ids = new WeakMap<object, number>();
  private readonly idsByPort = new Map<number, number>();
  private seq = 0;
  private server: Server | undefined;

  constructor(
    private readonly tls: TlsMaterial | undefined,
    private readonly handler: (req: IncomingMessage, res: ServerResponse) => void,
    private readonly onChange: () => void,
    private readonly recordLimit: number,
  ) {}

  get openConnections(): number {
    return this.sockets.size;
  }

  /** The id of the connection a request came on (0 if unknown). */
  connectionIdOf(req: IncomingMessage): number {
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
    for (const socket of this.sockets.keys()) socket.destroy();
    await closed;
    while (this.sockets.size > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  private create(): Server {
    const server: Server =
      this.tls === undefined
        ? createHttpServer(this.handler)
        : createHttpsServer(
            {
              key: this.tls.server.key,
              cert: this.tls.server.cert,
              ca: this.tls.caPem,
              requestCert: this.tls.client !== undefined,
              rejectUnauthorized: false,
            },
            this.handler,
          );
    server.on('connection', (socket: Socket) => this.track(socket));
    server.on('secureConnection', (socket: Socket) => {
      const id = this.idsByPort.get(socket.remotePort ?? -1);
      if (id !== undefined) this.ids.set(socket, id);
    });
    server.on('tlsClientError', (_err: Error, socket: Socket) => socket.destroy());
    return server;
  }

  private track(socket: Socket): void {
    const id = ++this.seq;
    const remotePort = socket.remotePort ?? -1;
    this.sockets.set(socket, id);
    this.ids.set(socket, id);
    this.idsByPort.set(remotePort, id);
    appendBounded(this.connectionLog, { event: 'open', at: Date.now(), id }, this.recordLimit);
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (this.idsByPort.get(remotePort) === id) this.idsByPort.delete(remotePort);
      appendBounded(this.connectionLog, { event: 'close', at: Date.now(), id }, this.recordLimit);
      this.onChange();
    });
    this.onChange();
  }
}
