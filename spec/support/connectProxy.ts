import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

/** Options of {@link ConnectProxy.start}. */
export interface ConnectProxyConfig {
  /** `user:password` every request must carry as `Proxy-Authorization: Basic ...` (else 407). */
  credentials?: string;
  /**
   * Hold back the answer to a watch (a request with `watch=true` or `watch=1`), headers included,
   * until its first event line has arrived, then release it all at once: what a buffering proxy
   * does to a stream. Needs a target it can read: http:// targets, through a tunnel or forwarded
   * (TLS in a tunnel passes as it is). An answer that is complete without an event line (an error
   * Status with a Content-Length, a chunked body that ends) is released when complete.
   */
  holdWatchUntilFirstEvent?: boolean;
  /**
   * Names the proxy resolves itself, each to a loopback address (`{ 'kube.example.test':
   * '127.0.0.1' }`): a spec reaches a loopback server under a name that is not loopback as
   * written, and no lookup or connection leaves the machine (a target is still refused unless
   * what it resolves to is loopback).
   */
  names?: Record<string, string>;
}

/** One answer the proxy held back, and for how long. */
export interface HeldAnswer {
  heldMs: number;
  bytes: number;
}

const WATCH_QUERY = /[?&]watch=(true|1)(&|$)/;
const REQUEST_LINE = /(?:^|\r\n)[A-Z]+ (\S+) HTTP\/1\.[01]\r\n/g;

/**
 * A real HTTP proxy on 127.0.0.1 for specs: `CONNECT host:port` tunnels TCP (what clients do for
 * https://, and undici for every target), and absolute-URI requests (`GET http://host/path`) are
 * forwarded (plain HTTP proxying). It only reaches loopback targets, counts what it carries,
 * can require credentials, and can hold a watch's answer until its first event.
 *
 * ```
 * client --CONNECT 127.0.0.1:6443--> proxy --TCP--> server
 *        <-- 200 Connection Established
 *        ==== bytes both ways (a watch's answer held until "}\n" with holdWatchUntilFirstEvent) ====
 * ```
 *
 * @example
 * const proxy = await ConnectProxy.start({ holdWatchUntilFirstEvent: true });
 * // HTTPS_PROXY=proxy.url ... then:
 * expect(proxy.tunnels).toBe(1);
 * await proxy.stop();
 */
export class ConnectProxy {
  /** CONNECT tunnels opened. */
  tunnels = 0;
  /** Requests seen: inside plaintext tunnels and forwarded. */
  requests = 0;
  /** Requests forwarded as plain HTTP (absolute URI). */
  forwarded = 0;
  /** Requests refused: 407 (no or wrong credentials) or 403 (not a loopback target). */
  refused = 0;
  /** The `host:port` of every CONNECT, in order. */
  readonly connectTargets: string[] = [];
  /** The watch answers held back (with holdWatchUntilFirstEvent), in order. */
  readonly held: HeldAnswer[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;

  private constructor(private readonly config: ConnectProxyConfig) {
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) =>
      this.tunnel(req, client, head),
    );
    this.server.on('connection', (socket: Socket) => this.track(socket));
  }

  /** Starts a proxy on 127.0.0.1, on a free port. */
  static async start(config: ConnectProxyConfig = {}): Promise<ConnectProxy> {
    const proxy = new ConnectProxy(config);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** `http://127.0.0.1:PORT` (with the credentials in it when `withCredentials`). */
  url(withCredentials = false): string {
    const { port } = this.server.address() as AddressInfo;
    const auth = withCredentials && this.config.credentials ? `${this.config.credentials}@` : '';
    return `http://${auth}127.0.0.1:${port}`;
  }

  /** Sockets open right now, on both sides of the proxy. */
  get openSockets(): number {
    return this.sockets.size;
  }

  /** Closes every socket and the server. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** Why a request may not pass (407/403 with a reason), or undefined when it may. */
  private refusal(req: http.IncomingMessage, host: string): [number, string] | undefined {
    const { credentials } = this.config;
    const expected = credentials && `Basic ${Buffer.from(credentials).toString('base64')}`;
    if (expected && req.headers['proxy-authorization'] !== expected)
      return [407, 'Proxy Authentication Required'];
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    if (!['127.0.0.1', 'localhost', '::1'].includes(bare)) return [403, 'Loopback Targets Only'];
    return undefined;
  }

  /** The address a target host is reached at: its entry in `names`, else itself. */
  private address(hostname: string): string {
    return Object.hasOwn(this.config.names ?? {}, hostname)
      ? this.config.names![hostname]
      : hostname;
  }

  private tunnel(req: http.IncomingMessage, client: Socket, head: Buffer): void {
    const target = new URL(`http://${req.url ?? ''}`);
    const address = this.address(target.hostname);
    const refused = this.refusal(req, address);
    if (refused) {
      this.refused++;
      client.end(
        `HTTP/1.1 ${refused[0]} ${refused[1]}\r\nProxy-Authenticate: Basic realm="spec"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      return;
    }
    this.tunnels++;
    this.connectTargets.push(target.host);
    const upstream = net.connect(Number(target.port || 80), address.replace(/^\[|\]$/g, ''));
    this.track(upstream);
    const hold = new AnswerHold(this.config.holdWatchUntilFirstEvent === true, this.held);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const fromClient = (chunk: Buffer) => {
        this.requests += hold.sawClientBytes(chunk);
        upstream.write(chunk);
      };
      if (head.length > 0) fromClient(head);
      client.on('data', fromClient);
      upstream.on('data', (chunk: Buffer) => {
        const out = hold.sawServerBytes(chunk);
        if (out) client.write(out);
      });
      upstream.once('end', () => {
        const rest = hold.flush();
        if (rest) client.end(rest);
        else client.end();
      });
      client.once('end', () => upstream.end());
    });
    const destroyBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.once('error', destroyBoth);
    client.once('error', destroyBoth);
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (!req.url?.startsWith('http://')) {
      res.writeHead(400).end('an absolute http:// URI or CONNECT');
      return;
    }
    const target = new URL(req.url);
    const address = this.address(target.hostname);
    const refused = this.refusal(req, address);
    if (refused) {
      this.refused++;
      res.writeHead(refused[0], { 'proxy-authenticate': 'Basic realm="spec"' }).end();
      return;
    }
    this.requests++;
    this.forwarded++;
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstreamReq = http.request({
      host: address.replace(/^\[|\]$/g, ''),
      port: target.port || 80,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
    });
    const holding =
      this.config.holdWatchUntilFirstEvent === true && WATCH_QUERY.test(target.search);
    upstreamReq.once('response', (upstreamRes) => {
      if (!holding) {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
        return;
      }
      const started = Date.now();
      const body: Buffer[] = [];
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const bytes = Buffer.concat(body);
        this.held.push({ heldMs: Date.now() - started, bytes: bytes.length });
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        res.write(bytes);
        upstreamRes.pipe(res);
      };
      upstreamRes.on('data', function collect(chunk: Buffer) {
        body.push(chunk);
        if (Buffer.concat(body).includes('}\n')) {
          upstreamRes.off('data', collect);
          release();
        }
      });
      upstreamRes.once('end', () => {
        if (!released) {
          release();
          res.end();
        }
      });
    });
    upstreamReq.once('error', () => res.destroy());
    res.once('close', () => upstreamReq.destroy());
    req.pipe(upstreamReq);
  }
}

/**
 * The holding of one tunnel's answers: client bytes arm it when they carry a watch request;
 * server bytes are then kept until the answer's first event line, or until the answer is
 * complete, and handed on together.
 */
class AnswerHold {
  private armed = false;
  private tls: boolean | undefined;
  private buffer: Buffer[] = [];
  private since = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly held: HeldAnswer[],
  ) {}

  /** Looks at bytes on their way to the server; returns how many requests they start. */
  sawClientBytes(chunk: Buffer): number {
    // A TLS handshake starts with a record of type 22: nothing to read in there.
    this.tls ??= chunk[0] === 0x16;
    if (this.tls) return 0;
    let requests = 0;
    for (const match of chunk.toString('latin1').matchAll(REQUEST_LINE)) {
      requests++;
      if (this.enabled && WATCH_QUERY.test(match[1])) this.armed = true;
    }
    return requests;
  }

  /** Takes bytes on their way to the client; returns what to send now (nothing while holding). */
  sawServerBytes(chunk: Buffer): Buffer | undefined {
    if (!this.armed) return chunk;
    if (this.buffer.length === 0) this.since = Date.now();
    this.buffer.push(chunk);
    const answer = Buffer.concat(this.buffer);
    return answerReady(answer) ? this.flush() : undefined;
  }

  /** Releases what is held (also when the server ends the connection). */
  flush(): Buffer | undefined {
    if (this.buffer.length === 0) return undefined;
    const answer = Buffer.concat(this.buffer);
    this.held.push({ heldMs: Date.now() - this.since, bytes: answer.length });
    this.buffer = [];
    this.armed = false;
    return answer;
  }
}

/** Whether a held answer has its first event line, or is complete without one. */
function answerReady(answer: Buffer): boolean {
  const headerEnd = answer.indexOf('\r\n\r\n');
  if (headerEnd < 0) return false;
  const body = answer.subarray(headerEnd + 4);
  if (body.includes('}\n')) return true;
  const head = answer.subarray(0, headerEnd).toString('latin1');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return body.length >= Number(length[1]);
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head))
    return body.includes('\r\n0\r\n\r\n') || body.subarray(0, 5).toString() === '0\r\n\r\n';
  return /^HTTP\/1\.[01] (1\d\d|204|304) /.test(head);
}
