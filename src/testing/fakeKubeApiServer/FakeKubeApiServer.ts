import { assertObjectArgument } from '../../objects/argumentChecks.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { constants as h2 } from 'node:http2';
import { GarbageCollector } from './deletion/GarbageCollector.js';
import { FaultInjector } from './FaultInjector.js';
import { buildKubeConfig, writeKubeConfigFile } from './kubeConfig.js';
import { HttpListener } from './HttpListener.js';
import { ObjectStore } from './ObjectStore.js';
import { ResourceTypes } from './ResourceTypes.js';
import { serveCrds } from './crds.js';
import { serveEvents } from './events.js';
import { FakeObjectApi } from './FakeObjectApi.js';
import { PodLogs } from './PodLogs.js';
import { handleRequest } from './handleRequest.js';
import type { ServerContext } from './ServerContext.js';
import { makeTlsMaterial } from './tls.js';
import type { TlsMaterial } from './tls.js';
import { Waiters } from './Waiters.js';
import type {
  CertificateAndKey,
  ConnectionLogEntry,
  FakeKubeApiServerOptions,
  FakeServerFaults,
  Http2Records,
  KubeConfigOptions,
  RecordedRequest,
} from './types.js';

/**
 * A real Kubernetes API server on 127.0.0.1 for tests: list, watch, get and pod logs for any
 * resource path, with kube-apiserver's semantics, and faults on demand.
 *
 * - One global resourceVersion counter (like etcd's revision) for every resource.
 * - History: the last `historySize` events of each resource (group/version/plural). A watch,
 *   `Exact` list or continue token older than what is kept answers 410 Expired.
 * - Synthetic ADDED events (watch without resourceVersion, sendInitialEvents) come newest
 *   first, so the version of the last one is never a safe place to resume.
 * - Selectors on a watch: an object that starts matching is ADDED, one that stops matching is
 *   DELETED (its last matching content at the new version), like kube-apiserver's watch cache.
 *
 * @example
 * const pods: ResourceRef<V1Pod> = { group: '', version: 'v1', plural: 'pods' };
 * const server = await FakeKubeApiServer.start();
 * server.create(pods, pod('web-1', '1'));
 * const kc = server.kubeConfig();                  // point any client at it
 * server.faults.dropAfter(1);                       // the next watch is cut after one event
 * await server.stop();
 */
export class FakeKubeApiServer extends FakeObjectApi {
  /** Every request, in arrival order (`status` is set when its response headers are sent). */
  readonly requests: RecordedRequest[] = [];
  /** Faults to arm for the next requests or watch connections. */
  readonly faults: FakeServerFaults;

  protected readonly ctx: ServerContext;
  /** Every request ever, unlike `requests`, which keeps at most `recordLimit`. */
  private requestsArrived = 0;
  private readonly injector = new FaultInjector();
  private readonly listener: HttpListener;
  private readonly waiters = new Waiters();
  private listenPort = 0;

  private constructor(
    options: FakeKubeApiServerOptions,
    private readonly tls: TlsMaterial | undefined,
  ) {
    super();
    const historySize = options.historySize ?? 1000;
    if (!Number.isInteger(historySize) || historySize < 0) {
      throw new RangeError(`historySize must be a non-negative integer: ${historySize}`);
    }
    const recordLimit = options.recordLimit ?? 100_000;
    this.faults = this.injector;
    const types = new ResourceTypes();
    const objects = new ObjectStore(historySize, types);
    // Stored CRDs define resource types; both Event APIs serve one store.
    serveCrds(objects, types, (ref) => {
      const store = objects.resource(ref);
      for (const watch of [...this.ctx.watches]) if (watch.follows(store)) watch.end();
    });
    serveEvents(objects);
    this.ctx = {
      objects,
      types,
      gc: new GarbageCollector(objects, types),
      serverAddress: () => `127.0.0.1:${this.listenPort}`,
      logs: new PodLogs(),
      faults: this.injector,
      watches: new Set(),
      requests: this.requests,
      recordLimit,
      timers: new Set(),
      token: options.token === undefined ? 'test-token' : options.token,
      clientCA: tls?.client !== undefined,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000,
      keepAlive: options.keepAlive ?? true,
      cors: options.cors ?? false,
      connectionId: (req) => this.listener.connectionIdOf(req),
      requestArrived: () => {
        this.requestsArrived++;
        this.waiters.notify();
      },
    };
    const maxConcurrentStreams = options.maxConcurrentStreams ?? 100;
    if (!Number.isInteger(maxConcurrentStreams) || maxConcurrentStreams < 1) {
      throw new RangeError(
        `maxConcurrentStreams must be a positive integer: ${maxConcurrentStreams}`,
      );
    }
    this.listener = new HttpListener(
      { tls, http2: options.http2 ?? true, maxConcurrentStreams, recordLimit },
      (req, res) => handleRequest(this.ctx, req, res),
      () => this.waiters.notify(),
    );
  }

  /**
   * Starts a server on 127.0.0.1 (a free port unless `port` is given).
   *
   * @example
   * const server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 100 });
   * afterAll(() => server.stop());
   */
  static async start(options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
    assertObjectArgument('FakeKubeApiServer.start', 'options', options, true);
    if (options.clientCA && !options.tls) throw new Error('clientCA needs tls: true');
    const tls = options.tls ? makeTlsMaterial(options.clientCA ?? false) : undefined;
    const server = new FakeKubeApiServer(options, tls);
    server.listenPort = await server.listener.listen(options.port ?? 0);
    return server;
  }

  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`. */
  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.listenPort}`;
  }

  /** The port it listens on (kept across `restart()`). */
  get port(): number {
    return this.listenPort;
  }

  /** The PEM of the CA that signed the server (and client) certificates, with `tls`. */
  get caPem(): string | undefined {
    return this.tls?.caPem;
  }

  /** A client certificate signed by the CA, with `tls` and `clientCA`. */
  get clientCert(): CertificateAndKey | undefined {
    return this.tls?.client;
  }

  /** The bearer token accepted now (`null`: no authentication). */
  get token(): string | null {
    return this.ctx.token;
  }

  /** The current global resourceVersion, e.g. `'42'`. */
  get resourceVersion(): string {
    return String(this.ctx.objects.rv);
  }

  /** Sockets open right now. */
  get openConnections(): number {
    return this.listener.openConnections;
  }

  /** Watch responses streaming right now. */
  get openWatches(): number {
    return this.ctx.watches.size;
  }

  /**
   * What the server saw of HTTP/2 (with `tls`): sessions, streams, resets by the client.
   *
   * @example
   * await server.waitForRequests(2);
   * expect(server.http2.sessions).toBe(1); // both requests shared one session
   */
  get http2(): Http2Records {
    return this.listener.http2.records;
  }

  /** Every socket opening and closing, in order. */
  get connectionLog(): ConnectionLogEntry[] {
    return this.listener.connectionLog;
  }

  /**
   * A KubeConfig (one cluster, user and context) pointing at this server. Over HTTP the cluster
   * has `skipTLSVerify` (client-node 1.4 refuses `http://` otherwise); over HTTPS the CA is in
   * `caData` and TLS is verified.
   *
   * @example
   * const kc = server.kubeConfig();                              // the accepted token
   * const stale = server.kubeConfig({ token: 'old' });           // 401
   * const x509 = server.kubeConfig({ user: 'cert' });            // needs { tls: true, clientCA: true }
   */
  kubeConfig(opts: KubeConfigOptions = {}): KubeConfig {
    assertObjectArgument('server.kubeConfig', 'opts', opts, true);
    return buildKubeConfig(this.url, this.tls, this.token, opts);
  }
  /**
   * Writes {@link kubeConfig} to a file (mode 0600, JSON, which kubectl reads like YAML) and
   * returns its absolute path: `kubectl --kubeconfig <path>` or `KUBECONFIG=<path>` reach the
   * server. Use TLS (`start({ tls: true })`): kubectl sends a bearer token only over HTTPS.
   *
   * @example
   * const path = await server.writeKubeConfig(join(dir, 'kubeconfig'));
   * await execFileAsync('kubectl', ['--kubeconfig', path, 'get', 'pods']);
   */
  writeKubeConfig(path: string, opts: KubeConfigOptions = {}): Promise<string> {
    return writeKubeConfigFile(path, this.kubeConfig(opts));
  }

  /**
   * Closes every open watch now, abruptly (no final chunk over HTTP/1.1, RST_STREAM over
   * HTTP/2), as a crashing API server or a cut network would. Clients resume or relist.
   *
   * @example
   * server.disconnectAll();
   * await server.waitForRequests(2); // the client came back
   */
  disconnectAll(): void {
    for (const watch of [...this.ctx.watches]) watch.disconnect();
  }
  /**
   * Sends HTTP/2 GOAWAY (`errorCode`, default NO_ERROR) on every open session. NO_ERROR closes
   * each gracefully, as kube-apiserver's `--goaway-chance` does: open streams (watches) go on
   * until they end or the client closes them; new requests need a new session. Another code
   * (e.g. `ENHANCE_YOUR_CALM`, 11) is a session error: the session and its streams end now.
   *
   * @example
   * server.goaway();
   * await until(() => server.http2.sessions === 2, 'a new session');
   */
  goaway(errorCode: number = h2.NGHTTP2_NO_ERROR): void {
    this.listener.http2.goaway(errorCode);
  }
  /**
   * Resets every open HTTP/2 stream now (RST_STREAM `errorCode`, default INTERNAL_ERROR): each
   * request fails, its session lives on. Returns how many streams were reset.
   *
   * @example
   * server.resetStreams();
   * expect(server.http2.openSessions).toBe(1);
   */
  resetStreams(errorCode: number = h2.NGHTTP2_INTERNAL_ERROR): number {
    return this.listener.http2.resetStreams(errorCode);
  }
  /**
   * Accepts `newToken` from now on; the previous token answers 401 (open watches go on).
   *
   * @example
   * server.rotateToken('token-2');
   * const fresh = server.kubeConfig(); // carries token-2
   */
  rotateToken(newToken: string): void {
    this.ctx.token = newToken;
  }
  /**
   * Resolves when exactly `n` sockets are open; rejects after `timeoutMs` (default 5000).
   *
   * @example
   * subscription.unsubscribe();
   * await server.waitForConnections(0);
   */
  waitForConnections(n: number, timeoutMs = 5000): Promise<void> {
    return this.waiters.until(
      () => this.openConnections === n,
      timeoutMs,
      () => `${this.openConnections} connections open, waiting for ${n}`,
    );
  }

  /**
   * Resolves when at least `n` requests have arrived; rejects after `timeoutMs` (default 5000).
   *
   * @example
   * await server.waitForRequests(2); // the reconnect happened
   */
  waitForRequests(n: number, timeoutMs = 5000): Promise<void> {
    return this.waiters.until(
      () => this.requestsArrived >= n,
      timeoutMs,
      () => `${this.requestsArrived} requests, waiting for ${n}`,
    );
  }

  /**
   * Stops listening, ends every watch and log stream, destroys every socket and clears every
   * timer. Objects, history, token and armed faults are kept. Idempotent.
   *
   * @example
   * afterEach(() => server.stop());
   */
  async stop(): Promise<void> {
    for (const watch of [...this.ctx.watches]) watch.dispose();
    for (const timer of this.ctx.timers) clearTimeout(timer);
    this.ctx.timers.clear();
    this.ctx.logs.endAll();
    await this.listener.close();
  }

  /**
   * Stops, then listens again on the same port with the same certificates, objects and
   * history: clients see their connections drop and can reconnect.
   *
   * @example
   * await server.restart();
   */
  async restart(): Promise<void> {
    await this.stop();
    this.listenPort = await this.listener.listen(this.listenPort);
  }
}
