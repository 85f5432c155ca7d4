import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { RequestInit } from 'node-fetch';
import type { WatchError } from './WatchError.js';

export type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Names one kind of resource on the API server. `group` `''` is the core group.
 *
 * The type parameter only carries the object type through `fromWatch`, `fromList` and friends,
 * so `fromWatch(kc, pods)` yields `WatchEvent<V1Pod>`.
 *
 * @example
 * const pods: ResourceRef<V1Pod> = { group: '', apiVersion: 'v1', plural: 'pods' };
 * // -> /api/v1/pods, or /api/v1/namespaces/{ns}/pods with `namespace`
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export interface ResourceRef<T = KubernetesObject> {
  group: string;
  apiVersion: string;
  plural: string;
}

/**
 * Where a watch connects and with which credentials, for custom credential sources.
 * `resolve()` runs before every request, so credentials that rotate are picked up on reconnect.
 *
 * @example
 * const cluster: ClusterConnection = {
 *   name: 'prod',
 *   resolve: async () => ({
 *     server: 'https://10.0.0.1:6443',
 *     init: { headers: { Authorization: `Bearer ${await readToken()}` }, agent },
 *   }),
 * };
 */
export interface ClusterConnection {
  name?: string;
  resolve(): Promise<ResolvedConnection>;
}

/** What a {@link ClusterConnection} resolves to: the server URL and node-fetch request options. */
export interface ResolvedConnection {
  server: string;
  init: RequestInit;
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
  warn(message: string): void;
  debug?(message: string): void;
}

/**
 * Options of one watch request. Query options are sent only when set, URL-encoded.
 *
 * @example
 * fromWatch(kc, pods, { namespace: 'default', labelSelector: 'app=web', allowWatchBookmarks: true });
 */
export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  signal?: AbortSignal;
  logger?: Logger;
  /** Yield a PARSE_ERROR and end on the first line that is not a watch event (default: skip it). */
  strict?: boolean;
  /** The longest line accepted, in bytes (default 16 MiB). */
  maxLineBytes?: number;
}

/** The type of a watch event that carries an object. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** A watch event that carries an object. */
export interface WatchObjectEvent<T = KubernetesObject> {
  type: WatchEventType;
  object: T;
  resourceVersion?: string;
}

/** A failure, as data. */
export interface WatchErrorEvent {
  type: 'ERROR';
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
  items: T[];
  resourceVersion: string;
}

/** Options of a list request. */
export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Page size (default 500). */
  limit?: number;
  signal?: AbortSignal;
  logger?: Logger;
}
