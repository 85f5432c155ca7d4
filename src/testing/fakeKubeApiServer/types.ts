import type { PrinterColumn, ScaleSubresource } from '../../objects/ResourceType.js';
/**
 * Options of {@link FakeKubeApiServer.start}.
 *
 * @example
 * const server = await FakeKubeApiServer.start({ tls: true, token: 's3cret', historySize: 50 });
 */
export interface FakeKubeApiServerOptions {
  /** Serve HTTPS with a certificate for 127.0.0.1 signed by a CA made at start (default false). */
  tls?: boolean;
  /** The bearer token every request must carry (default `'test-token'`); `null` checks nothing. */
  token?: string | null;
  /** Events kept per resource (per group/version/plural) for watch-from-version (default 1000). */
  historySize?: number;
  /** Period of BOOKMARKs to watches with `allowWatchBookmarks=true` (default 1000; 0 disables). */
  bookmarkIntervalMs?: number;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /**
   * With `tls`: also make a client certificate signed by the same CA, ask clients for a
   * certificate and accept a valid one as authentication ({@link FakeKubeApiServer.clientCert}).
   */
  clientCA?: boolean;
  /**
   * Keep connections alive after a non-streaming response (default true, like kube-apiserver).
   * `false` answers `Connection: close`, so every list or error closes its socket at once.
   */
  keepAlive?: boolean;
  /**
   * How many entries `requests` and `connectionLog` keep (default 100 000): past it the oldest
   * half is dropped, so a server that runs for days (the CLI's demo cluster) stays bounded.
   */
  recordLimit?: number;
  /**
   * With `tls`: offer HTTP/2 through ALPN (`h2`, HTTP/1.1 still accepted), as kube-apiserver
   * does (default true). `false` serves HTTP/1.1 only. Plain HTTP is always HTTP/1.1.
   */
  http2?: boolean;
  /** SETTINGS_MAX_CONCURRENT_STREAMS sent to HTTP/2 clients (default 100 as Go's http2). */
  maxConcurrentStreams?: number;
  /**
   * Let browser pages on loopback origins (`http(s)://127.0.0.1:*`, `localhost:*`, `[::1]:*`)
   * use the server: CORS preflights are answered and answers carry Access-Control-Allow-Origin
   * (default false). Other origins get no CORS headers (preflights: 403).
   */
  cors?: boolean;
}

/**
 * A custom resource for {@link FakeKubeApiServer.defineResource}, as a CRD would declare it: the
 * input form (optional fields, kube-apiserver's defaults) of the one resource-type record the
 * server, its discovery and the command share (`ResourceType` in src/objects), which the server
 * makes of it through the CRD it writes.
 *
 * @example
 * server.defineResource({
 *   group: 'stable.example.com', version: 'v1', plural: 'crontabs', kind: 'CronTab',
 *   shortNames: ['ct'],
 *   printerColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
 * });
 */
export interface ResourceDefinition {
  /** API group, e.g. `'stable.example.com'`. */
  group: string;
  /** Version, e.g. `'v1'`. */
  version?: string;
  /** @deprecated Use `version` (accepted until 1.0). */
  apiVersion?: string;
  /** Plural, as in the path, e.g. `'crontabs'`. */
  plural: string;
  /** Kind, e.g. `'CronTab'`. */
  kind: string;
  /** Namespaced (default) or cluster-scoped. */
  namespaced?: boolean;
  /** Singular name (default: the kind in lower case). */
  singular?: string;
  /** Short names kubectl accepts, e.g. `['ct']`. */
  shortNames?: string[];
  /** Columns of `kubectl get` (a CRD's `additionalPrinterColumns`); Age is added after them. */
  printerColumns?: PrinterColumn[];
  /**
   * The CRD's `subresources`: `status` (writes to the object keep the stored status, writes to
   * `/status` change only it) and `scale` (`true`: `.spec.replicas`, `.status.replicas`,
   * `.status.selector`).
   */
  subresources?: {
    /** Serve `/status`, the status kept apart from the rest of the object. */
    status?: boolean;
    /** Serve `/scale` (an autoscaling/v1 Scale) mapped to these paths, or the usual ones. */
    scale?: ScaleSubresource | boolean;
  };
  /**
   * The resource's schema, as a CRD's `openAPIV3Schema` (`{ type: 'object', properties: ... }`):
   * published in `/openapi/v3` (`kubectl explain`) and checked on writes for unknown fields; its
   * `x-kubernetes-list-type` / `x-kubernetes-list-map-keys` say how lists merge. Without it the
   * resource takes any fields (`x-kubernetes-preserve-unknown-fields`).
   */
  schema?: Record<string, unknown>;
}

export type { PrinterColumn } from '../../objects/ResourceType.js';

/**
 * What the server saw of HTTP/2 ({@link FakeKubeApiServer.http2}).
 *
 * @example
 * expect(server.http2).toMatchObject({ sessions: 1, openStreams: 3, streamsResetByClient: 0 });
 */
export interface Http2Records {
  /** HTTP/2 sessions opened since start. */
  sessions: number;
  /** HTTP/2 sessions open now. */
  openSessions: number;
  /** Streams open now in each open session, in the order the sessions opened. */
  openStreamsPerSession: number[];
  /** Streams (requests) opened since start. */
  streams: number;
  /** Streams open now. */
  openStreams: number;
  /** The most streams that were open at once. */
  peakOpenStreams: number;
  /** Streams the client reset (RST_STREAM) while their session lived on. */
  streamsResetByClient: number;
}

/**
 * One request as the server saw it, in arrival order ({@link FakeKubeApiServer.requests}).
 *
 * @example
 * await server.waitForRequests(1);
 * const [r] = server.requests;
 * expect(r).toMatchObject({ method: 'GET', path: '/api/v1/pods', watch: true, status: 200 });
 * expect(r.query.resourceVersion).toBe('5');
 */
export interface RecordedRequest {
  /** The HTTP method. */
  method: string;
  /** The path, without the query. */
  path: string;
  /** Every query parameter (the first one wins when repeated, as in kube-apiserver). */
  query: Record<string, string>;
  /** `watch=true` or `watch=1`. */
  watch: boolean;
  /** Request headers; the value of `authorization` is replaced by `'<redacted>'`. */
  headers: Record<string, string | string[] | undefined>;
  /** An `Authorization: Bearer ...` header was present. */
  hasBearer: boolean;
  /** The bearer token was the one accepted at that moment. */
  tokenValid: boolean;
  /** A client certificate signed by the server's CA was presented (with `clientCA`). */
  clientCertValid: boolean;
  /** HTTP status of the response; 0 until the response headers are sent. */
  status: number;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** Id of the connection it came on ({@link ConnectionLogEntry.id}). */
  connectionId: number;
  /** `'1.1'` or `'2.0'`. */
  httpVersion: string;
}

/**
 * One socket opening or closing ({@link FakeKubeApiServer.connectionLog}).
 *
 * @example
 * expect(server.connectionLog.filter((e) => e.event === 'close')).toHaveLength(1);
 */
export interface ConnectionLogEntry {
  /** Whether the socket opened or closed. */
  event: 'open' | 'close';
  /** `Date.now()` of the event. */
  at: number;
  /** Increasing per server, starting at 1; survives `restart()`. */
  id: number;
}

/**
 * Which credentials {@link FakeKubeApiServer.kubeConfig} puts in the KubeConfig.
 *
 * @example
 * const kc = server.kubeConfig({ token: 'wrong' });           // expect 401s
 * const kc2 = server.kubeConfig({ user: 'cert' });             // x509, needs clientCA
 */
export interface KubeConfigOptions {
  /** Bearer token to use (default: the token the server accepts now). */
  token?: string;
  /** Name of the context (and cluster) in the KubeConfig (default `'fake'`). */
  context?: string;
  /** `'token'` (default), `'cert'` (client certificate; needs `clientCA`) or `'none'`. */
  user?: 'token' | 'cert' | 'none';
  /** Namespace of the context. */
  namespace?: string;
}

/**
 * A PEM certificate and its PEM private key.
 *
 * @example
 * const { cert, key } = server.clientCert!;
 * https.get(url, { ca: server.caPem, cert, key });
 */
export interface CertificateAndKey {
  /** The certificate, PEM. */
  cert: string;
  /** Its private key, PEM. */
  key: string;
}

/**
 * Options of {@link FakeServerFaults.fail}.
 *
 * @example
 * server.faults.fail(429, { times: 2, retryAfterSeconds: 1, match: 'watch' });
 */
export interface FailOptions {
  /** How many requests get this answer (default 1). */
  times?: number;
  /** Adds a `Retry-After` header and `details.retryAfterSeconds` to the Status. */
  retryAfterSeconds?: number;
  /** Status `reason` (default: the Kubernetes reason for the code, e.g. `ServiceUnavailable`). */
  reason?: string;
  /** Status `message` (default: derived from the code). */
  message?: string;
  /**
   * Which requests it applies to: `'list'` is a GET of resources (discovery is not), `'watch'` a
   * watch, `'any'` (default) whatever comes next, discovery and pod logs included.
   */
  match?: 'watch' | 'list' | 'any';
  /**
   * Only requests for this path (`'/api'`: discovery's first request alone, while the rest of a
   * run goes through); a path ending in `/` is every path below it (`'/apis/'`).
   */
  path?: string;
}

/**
 * Faults armed for the next request(s) or watch connection(s) ({@link FakeKubeApiServer.faults}).
 * Each kind of fault is a queue consumed in order; different kinds combine on one connection.
 * "Events" counted by `dropAfter` and `cutLine` are every line written to the watch except
 * periodic BOOKMARKs (ADDED/MODIFIED/DELETED, the initial-events-end BOOKMARK, ERROR).
 *
 * @example
 * server.faults.dropAfter(2);              // the next watch is cut after its 2nd event
 * server.faults.fail(503, { times: 3, retryAfterSeconds: 1 });
 * server.faults.reset();
 */
export interface FakeServerFaults {
  /**
   * The next watch connection(s) are cut after `events` events: over HTTP/1.1 the socket closes
   * without the final chunk, over HTTP/2 the stream is reset (RST_STREAM INTERNAL_ERROR).
   */
  dropAfter(events: number, opts?: { times?: number }): void;
  /** The next watch writes the first half of the bytes of an event line, then is cut. */
  cutLine(opts?: { afterEvents?: number }): void;
  /**
   * The next watch (on `opts.path`: that collection path, or any below it when it ends in `/`)
   * sends its headers, then nothing at all (no bookmarks) for `ms`, then goes on: the events
   * of that time arrive late, in order.
   */
  stall(ms: number, opts?: { path?: string }): void;
  /**
   * The next request(s) are answered with `status` and a Kubernetes Status body (before
   * authentication is checked, as a proxy or an overloaded server would).
   */
  fail(status: number, opts?: FailOptions): void;
  /** The next request(s) (any kind) are held for `ms` before they are handled. */
  delayHeaders(ms: number, opts?: { times?: number }): void;
  /** The next watch(es) answer 200 and end their body at once. */
  closeImmediately(opts?: { times?: number }): void;
  /** Disarms every fault not yet consumed. */
  reset(): void;
}
