import type { KubeConfig, KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import type { WatchError } from './WatchError.js';

export type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Names one kind of resource on the API server. `group` `''` is the core group.
 *
 * The type parameter only carries the object type through `fromWatch`, `fromList` and friends,
 * so `fromWatch(kc, pods)` yields `WatchEvent<V1Pod>`. `kind` and `namespaced` are what writes
 * need (an apply body carries `apiVersion` and `kind`; a cluster-scoped resource never has a
 * namespace in its path): the built-in refs and {@link resource} fill them.
 *
 * Before 0.2 `version` was called `apiVersion`, a trap: everywhere else in Kubernetes
 * `apiVersion` means `'apps/v1'`. A ref written with `apiVersion` (and no `version`) is still
 * accepted until 1.0; everything kube-rx builds and prints uses `version`.
 *
 * @example
 * const pods: ResourceRef<V1Pod> = { group: '', version: 'v1', plural: 'pods', kind: 'Pod' };
 * // -> /api/v1/pods, or /api/v1/namespaces/{ns}/pods with `namespace`
 */
export type ResourceRef<T = KubernetesObject> = VersionedResourceRef<T> | LegacyResourceRef<T>;

/** A {@link ResourceRef} as written since 0.2: with `version`. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export interface VersionedResourceRef<T = KubernetesObject> extends ResourceRefFields {
  /** Version within the group, e.g. `'v1'` or `'v1beta2'`. */
  version: string;
  /** @deprecated Use `version`; ignored when `version` is set. */
  apiVersion?: string;
}

/**
 * A {@link ResourceRef} as written before 0.2, with `apiVersion` for the version: accepted until
 * 1.0.
 *
 * @deprecated Write `version` instead of `apiVersion`.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export interface LegacyResourceRef<T = KubernetesObject> extends ResourceRefFields {
  /** Absent: a ref with `version` is a {@link VersionedResourceRef}. */
  version?: undefined;
  /**
   * @deprecated Use `version` (accepted until 1.0): this is the version within the group, e.g.
   * `'v1'`, not the objects' `apiVersion` (`'apps/v1'`).
   */
  apiVersion: string;
}

/** What every {@link ResourceRef} has beside its version. */
export interface ResourceRefFields {
  /** API group, e.g. `'apps'`; `''` for the core group (served under `/api`). */
  group: string;
  /** Lower-case plural name of the resource, as in its URL, e.g. `'pods'`. */
  plural: string;
  /** The objects' kind, e.g. `'Deployment'`: what an apply body carries. */
  kind?: string;
  /** Whether objects live in namespaces (default true); false for nodes, namespaces, CRDs... */
  namespaced?: boolean;
  /**
   * What lists and watches carry: whole objects (`'object'`, the default) or only their
   * metadata (`'metadata'`: PartialObjectMetadata, see `metadataOnly`).
   */
  shape?: 'object' | 'metadata';
}

/**
 * An object reduced to its metadata, as the API server sends it for `Accept:
 * ...;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (what a `metadataOnly` resource yields).
 *
 * @example
 * fromWatch(kc, metadataOnly(pods)).subscribe((e) => e.type !== 'ERROR' && console.log(e.object.metadata.name));
 */
export interface V1PartialObjectMetadata {
  /** Always `'meta.k8s.io/v1'`. */
  apiVersion: 'meta.k8s.io/v1';
  /** Always `'PartialObjectMetadata'`. */
  kind: 'PartialObjectMetadata';
  /** The object's metadata, as the server has it. */
  metadata: V1ObjectMeta;
}

/**
 * Runs on each object as it is decoded (watch events and list items), before anything queues,
 * stores or compares it; it may change the object it is given (nothing else holds it yet).
 */
export type ObjectTransform = (object: any) => any;

/**
 * Where a watch connects and with which credentials, for custom credential sources.
 * `resolve()` runs before every request, so credentials that rotate are picked up on reconnect.
 *
 * @example
 * const cluster: ClusterConnection = {
 *   name: 'prod',
 *   resolve: async () => ({
 *     server: 'https://10.0.0.1:6443',
 *     headers: { Authorization: `Bearer ${await readToken()}` },
 *     tls: { ca: await readFile('/etc/kube/ca.crt') },
 *   }),
 * };
 */
export interface ClusterConnection {
  /** A name for messages and logs (e.g. the context name); never a credential. */
  name?: string;
  /**
   * Where to connect and with which credentials; called afresh before every request, with the
   * request's {@link ResolveContext}. Its headers are sent as resolved, over any scheme.
   */
  resolve(context?: ResolveContext): Promise<ResolvedConnection>;
}

/**
 * What a request hands the connection it resolves: where to report (the request's logger).
 *
 * @example
 * const cluster: ClusterConnection = {
 *   resolve: async ({ logger } = {}) => {
 *     logger?.debug?.('resolving');
 *     return { server: 'https://10.0.0.1:6443' };
 *   },
 * };
 */
export interface ResolveContext {
  /** The request's logger (its `logger` option), if any. */
  logger?: Logger;
}

/**
 * TLS settings of a connection: PEM material and verification. Verification is on unless
 * `rejectUnauthorized` is `false`.
 */
export interface ResolvedTls {
  /** The certificate authorities the server's certificate must chain to (PEM). */
  ca?: string | Buffer;
  /** A client certificate (PEM), with its `key`. */
  cert?: string | Buffer;
  /** The client certificate's private key (PEM). */
  key?: string | Buffer;
  /** The name the server's certificate must carry, when not the URL's host (`tls-server-name`). */
  servername?: string;
  /** `false` turns verification off (`insecure-skip-tls-verify`). */
  rejectUnauthorized?: boolean;
}

/**
 * What a {@link ClusterConnection} resolves to, transport-neutral: where to connect, which
 * headers (credentials) every request carries, TLS, a proxy, and whether HTTP/2 may be used.
 * Exactly this is what kube-rx uses: nothing else is added to or taken from it.
 */
export interface ResolvedConnection {
  /** Base URL of the API server, `https://host:port` (or `http://`), or a proxy's base URL with a path. */
  server: string;
  /** Headers every request carries, such as `Authorization`. */
  headers?: Record<string, string>;
  /** TLS settings (CA, client certificate, server name, verification). */
  tls?: ResolvedTls;
  /** An http(s) proxy URL that requests tunnel through (kubeconfig `proxy-url`). */
  proxy?: string;
  /** `false` forces HTTP/1.1; by default HTTP/2 is used where the server offers it (ALPN). */
  http2?: boolean;
}

/**
 * A KubeConfig (its current context) or a custom {@link ClusterConnection}.
 *
 * @example
 * const kc = new KubeConfig();
 * kc.loadFromDefault();
 * fromWatch(kc, pods).subscribe(console.log);
 */
export type Cluster = KubeConfig | ClusterConnection;

/**
 * Where kube-rx reports what it skipped or retried. Silent by default.
 *
 * @example
 * watchResource(kc, pods, { logger: { warn: (m) => console.warn(m) } });
 */
export interface Logger {
  /** Something was skipped or went wrong but the stream goes on (e.g. an unreadable line). */
  warn(message: string): void;
  /** Detail for troubleshooting, when the logger wants it. */
  debug?(message: string): void;
}

/**
 * Options of one watch request. Query options are sent only when set, URL-encoded.
 *
 * @example
 * fromWatch(kc, pods, { namespace: 'default', labelSelector: 'app=web', allowWatchBookmarks: true });
 */
export interface WatchOptions {
  /** Watch one namespace (`/namespaces/{ns}/` in the path); unset: all namespaces. */
  namespace?: string;
  /** Label selector, e.g. `'app=web,tier!=cache'`. */
  labelSelector?: string;
  /** Field selector, e.g. `'status.phase=Running'`. */
  fieldSelector?: string;
  /** Watch changes after this version; unset: synthetic ADDED events for the current state first. */
  resourceVersion?: string;
  /** How `resourceVersion` is interpreted (with `sendInitialEvents`: `'NotOlderThan'`). */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** The server ends the watch after this many seconds. */
  timeoutSeconds?: number;
  /** Ask the server for BOOKMARK events (progress without changes). */
  allowWatchBookmarks?: boolean;
  /** Watch-list: the current state as ADDED events, then the initial-events-end BOOKMARK. */
  sendInitialEvents?: boolean;
  /** Aborting it ends the watch and releases its connection. */
  signal?: AbortSignal;
  /** Where skipped lines and other oddities are reported (default: silent). */
  logger?: Logger;
  /** Yield a PARSE_ERROR and end on the first line that is not a watch event (default: skip it). */
  strict?: boolean;
  /** The longest line accepted, in bytes (default 16 MiB). */
  maxLineBytes?: number;
  /**
   * Applied once to each object as it is decoded (ADDED, MODIFIED and DELETED objects and list
   * items, never BOOKMARK or ERROR objects), before anything is queued, stored or compared;
   * what it returns is what every operator sees. A transform that throws makes that line
   * unreadable (logged and skipped; PARSE_ERROR with `strict`). E.g. `stripManagedFields`.
   */
  transform?: ObjectTransform;
  /** Page size of the lists made from this source (`list()`, and the lists of resume); 500. */
  limit?: number;
}

/** The type of a watch event that carries an object. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** A watch event that carries an object. */
export interface WatchObjectEvent<T = KubernetesObject> {
  /** What happened to the object (BOOKMARK: only `metadata.resourceVersion` is meaningful). */
  type: WatchEventType;
  /** The object as of this event (for DELETED: its last state). */
  object: T;
  /** `object.metadata.resourceVersion`, where to resume after this event. */
  resourceVersion?: string;
}

/** A failure, as data. */
export interface WatchErrorEvent {
  /** Always `'ERROR'`. */
  type: 'ERROR';
  /** What failed, with its type, status code and resource path. */
  error: WatchError;
}

/**
 * One event of a watch: an object event, or an ERROR carrying a {@link WatchError}.
 *
 * @example
 * for await (const event of watchResource(kc, pods)) {
 *   if (event.type === 'ERROR') console.error(event.error.errorType);
 *   else console.log(event.type, event.object.metadata?.name, event.resourceVersion);
 * }
 */
export type WatchEvent<T = KubernetesObject> = WatchObjectEvent<T> | WatchErrorEvent;

/**
 * The result of a list: every item and the resourceVersion of the collection.
 *
 * @example
 * fromList(kc, pods).subscribe(({ items, resourceVersion }) => console.log(items.length, resourceVersion));
 */
export interface ListResult<T = KubernetesObject> {
  /** Every object, across all pages. */
  items: T[];
  /** The collection's resourceVersion: a watch from it misses nothing that the list did not show. */
  resourceVersion: string;
}

/** Options of a list request. */
export interface ListOptions {
  /** List one namespace; unset: all namespaces. */
  namespace?: string;
  /** Label selector, e.g. `'app=web'`. */
  labelSelector?: string;
  /** Field selector, e.g. `'status.phase=Running'`. */
  fieldSelector?: string;
  /**
   * List at (or not older than) this version. Unset (the default): a consistent read of the most
   * recent state from storage; `'0'`: whatever the API server's cache holds (cheaper, may be stale).
   */
  resourceVersion?: string;
  /** How `resourceVersion` is interpreted. */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Page size (default 500). */
  limit?: number;
  /**
   * Applied once to each item as it is decoded, before it is collected (see
   * {@link WatchOptions.transform}); a transform that throws fails the list (PARSE_ERROR).
   */
  transform?: ObjectTransform;
  /** Aborting it ends the list and releases its connection. */
  signal?: AbortSignal;
  /** Where oddities (such as a restarted list) are reported (default: silent). */
  logger?: Logger;
}
