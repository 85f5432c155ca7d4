// An HTTP/2 client for the FakeKubeApiServer specs: node's own http2, one session per `connect`.
import http2 from 'node:http2';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';

/** Opens a session to the (TLS) server, trusting its CA; resolves once ALPN is done. */
export function connect(
  server: FakeKubeApiServer,
  opts: { cert?: string; key?: string } = {},
): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(server.url, { ca: server.caPem, ...opts });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
    session.on('error', () => undefined);
  });
}

/** One HTTP/2 request, its head and its body as it arrives. */
export class H2Stream {
  status = 0;
  headers: IncomingHttpHeaders = {};
  raw = '';
  /** The RST_STREAM code the stream closed with (0: it ended cleanly). */
  rstCode: number | undefined;
  readonly stream: ClientHttp2Stream;
  readonly responded: Promise<void>;
  readonly closed: Promise<void>;

  constructor(
    session: ClientHttp2Session,
    path: string,
    opts: {
      token?: string | null;
      method?: string;
      headers?: Record<string, string>;
      body?: unknown;
    } = {},
  ) {
    const token = opts.token === undefined ? 'test-token' : opts.token;
    const headers: http2.OutgoingHttpHeaders = {
      ':path': path,
      ':method': opts.method ?? 'GET',
      ...opts.headers,
    };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
    this.stream = session.request(headers, { endStream: opts.body === undefined });
    if (opts.body !== undefined) this.stream.end(JSON.stringify(opts.body));
    this.stream.setEncoding('utf8');
    this.stream.on('error', () => undefined);
    this.responded = new Promise((resolve) => {
      this.stream.on('response', (h) => {
        this.status = Number(h[':status']);
        this.headers = h;
        resolve();
      });
      this.stream.on('close', () => resolve());
    });
    this.stream.on('data', (c: string) => (this.raw += c));
    this.closed = new Promise((resolve) =>
      this.stream.on('close', () => {
        this.rstCode = this.stream.rstCode;
        resolve();
      }),
    );
  }

  /** Complete lines received so far, parsed. */
  get events(): any[] {
    const parts = this.raw.split('\n');
    parts.pop();
    return parts.map((l) => JSON.parse(l));
  }

  /** The whole body, parsed, once the stream closed. */
  async json(): Promise<any> {
    await this.closed;
    return JSON.parse(this.raw);
  }
}
