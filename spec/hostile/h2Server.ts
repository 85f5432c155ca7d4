import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { expect } from '@jest/globals';
import { pods } from '../../src/objects/resources.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { makeTlsMaterial } from '../../src/testing/fakeKubeApiServer/tls.js';
import type { ClusterConnection, WatchEvent } from '../../src/types.js';
import { line, rawPod } from '../support/rawServer.js';
import { until } from '../support/wait.js';

/** What a hostile case does with the one stream it is given. */
export type HostileStream = (stream: http2.ServerHttp2Stream, session: http2.Http2Session) => void;

const tls = makeTlsMaterial(false);

/**
 * A raw `node:http2` secure server (h2 only, TLS from the test kit's certificates) for hostile
 * HTTP/2 answers. A watch in a namespace named `healthy...` gets a well-behaved stream: one ADDED
 * at once and one more per {@link H2Server.sendHealthy}; any other request goes to the case's
 * `hostile` handler. It follows its sessions and streams so that a case can check what stayed
 * open and which session a stream ran on.
 */
export class H2Server {
  readonly sessions = new Set<http2.ServerHttp2Session>();
  readonly streams = new Set<http2.ServerHttp2Stream>();
  sessionsSeen = 0;
  private readonly healthy = new Map<http2.ServerHttp2Stream, string>();
  private healthySeq = 0;
  hostile: HostileStream = (stream) => stream.respond({ ':status': 404 }, { endStream: true });

  private constructor(private readonly server: http2.Http2SecureServer) {}

  static async start(settings: http2.Settings = {}): Promise<H2Server> {
    const server = http2.createSecureServer({
      key: tls.server.key,
      cert: tls.server.cert,
      allowHTTP1: false,
      settings,
      // Node refuses to send a header block over 64 KB; a hostile server has no such scruple.
      maxSendHeaderBlockLength: 64 * 1024 * 1024,
    });
    const h2 = new H2Server(server);
    server.on('session', (session) => {
      h2.sessionsSeen++;
      h2.sessions.add(session);
      session.on('error', () => undefined);
      session.once('close', () => h2.sessions.delete(session));
    });
    server.on('stream', (stream, headers) => h2.route(stream, headers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return h2;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The cluster every case watches through: one target, so its watches share sessions. */
  readonly cluster: ClusterConnection = {
    resolve: async () => ({
      server: this.url,
      headers: { Authorization: 'Bearer h2-hostile-token' },
      tls: { ca: tls.caPem },
    }),
  };

  /** The session a healthy watch of `namespace` runs on. */
  sessionOfHealthy(namespace: string): http2.Http2Session | undefined {
    for (const [stream, ns] of this.healthy) if (ns === namespace) return stream.session;
    return undefined;
  }

  /** Sends the next ADDED to every healthy watch still open. */
  sendHealthy(): void {
    this.healthySeq++;
    for (const [stream, namespace] of this.healthy) {
      if (!stream.destroyed && !stream.closed)
        stream.write(
          line('ADDED', rawPod(`${namespace}-${this.healthySeq}`, `${this.healthySeq}`)),
        );
    }
  }

  private route(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    this.streams.add(stream);
    stream.on('error', () => undefined);
    stream.once('close', () => {
      this.streams.delete(stream);
      this.healthy.delete(stream);
    });
    const namespace = /\/namespaces\/([^/]+)\//.exec(String(headers[':path']))?.[1] ?? '';
    if (!namespace.startsWith('healthy')) return this.hostile(stream, stream.session!);
    this.healthy.set(stream, namespace);
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.write(line('ADDED', rawPod(`${namespace}-${this.healthySeq}`, `${this.healthySeq}`)));
  }

  /** Waits until every stream and session of the server closed. */
  async waitForNothingOpen(timeoutMs = 3000): Promise<void> {
    await until(
      () => this.streams.size === 0 && this.sessions.size === 0,
      () => `${this.streams.size} stream(s) and ${this.sessions.size} session(s) still open`,
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A well-behaved watch in namespace `namespace` (its events, and its unsubscribe). */
export interface HealthyWatch {
  namespace: string;
  events: WatchEvent[];
  stop(): void;
  ended: () => boolean;
}

/**
 * Starts a plain `fromWatch` in a `healthy...` namespace and waits for its first event, so that
 * its stream is open (on a session of the shared target) before the hostile case begins.
 */
export async function startHealthy(server: H2Server, namespace: string): Promise<HealthyWatch> {
  const events: WatchEvent[] = [];
  let ended = false;
  const subscription = fromWatch(server.cluster, pods, { namespace }).subscribe({
    next: (event) => events.push(event),
    error: () => (ended = true),
    complete: () => (ended = true),
  });
  await until(() => events.length >= 1, `the first event of ${namespace}`, 5000);
  return { namespace, events, stop: () => subscription.unsubscribe(), ended: () => ended };
}

/**
 * The healthy watches were not disturbed: after the case, one more event reaches each of them,
 * and each has only ADDED events, in order, with no error and no end.
 */
export async function expectUndisturbed(server: H2Server, watches: HealthyWatch[]): Promise<void> {
  const before = watches.map((w) => w.events.length);
  server.sendHealthy();
  await until(
    () => watches.every((w, i) => w.events.length > before[i]),
    () =>
      `healthy watches without the next event: ${watches.filter((w, i) => w.events.length <= before[i]).map((w) => w.namespace)}`,
    5000,
  );
  for (const watch of watches) {
    expect(watch.ended()).toBe(false);
    expect(watch.events.map((e) => e.type)).toEqual(watch.events.map(() => 'ADDED'));
  }
}
