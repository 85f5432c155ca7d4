import type { V1Scale, V1Status } from '@kubernetes/client-node';
import type { KubernetesObject, ListResult } from '../../types.js';
import type { ApplyConfiguration } from './ApplyConfiguration.js';
import type {
  ApiListOptions,
  ApplyOptions,
  DeleteOptions,
  PatchOptions,
  RequestOptions,
  WriteOptions,
} from './ResourceApiOptions.js';

/**
 * The `status` subresource of a resource: writes that change only `status` (and reads of it).
 *
 * @example
 * await resourceApi(kc, deployments).status.apply(
 *   { metadata: { name: 'web', namespace: 'shop' }, status: { observedGeneration: 3 } },
 *   { fieldManager: 'my-operator' },
 * );
 */
export interface StatusApi<T> {
  /** GET `.../{name}/status`. */
  get(name: string, options?: RequestOptions): Promise<T>;
  /** PUT `.../{name}/status` with the object (its `metadata.resourceVersion` is a precondition). */
  replace(object: T, options?: WriteOptions): Promise<T>;
  /** PATCH `.../{name}/status`. */
  patch(name: string, patch: unknown, options: PatchOptions): Promise<T>;
  /** Server-side apply of `.../{name}/status`. */
  apply(config: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
}

/**
 * The `scale` subresource (`autoscaling/v1` Scale), where the resource serves one.
 *
 * @example
 * await resourceApi(kc, deployments).scale.patch('web', { spec: { replicas: 5 } }, { namespace: 'shop', type: 'merge' });
 */
export interface ScaleApi {
  /** GET `.../{name}/scale`. */
  get(name: string, options?: RequestOptions): Promise<V1Scale>;
  /** PUT `.../{name}/scale` with a Scale (`metadata.name`, and `namespace` where namespaced). */
  replace(scale: V1Scale, options?: WriteOptions): Promise<V1Scale>;
  /** PATCH `.../{name}/scale`. */
  patch(name: string, patch: unknown, options: PatchOptions): Promise<V1Scale>;
}

/**
 * Reads and writes of one resource through kube-rx's request core (the transport of its
 * watches: HTTP/2 multiplexed, keep-alive, proxies, the credentials rule, redaction, fetch in a
 * browser). Every method resolves with the object the server returned and rejects with a
 * `WatchError`: 409 CONFLICT (`isConflict`, `isAlreadyExists`; a server-side apply conflict
 * lists `conflicts`), 422 INVALID, 404 NOT_FOUND..., and BAD_REQUEST before anything is sent
 * for an invalid name, namespace, field manager, option or resource ref.
 *
 * @example
 * const api: ResourceApi<V1Deployment> = resourceApi(kc, deployments);
 * const web = await api.get('web', { namespace: 'shop' });
 */
export interface ResourceApi<T = KubernetesObject> {
  /** GET one object. */
  get(name: string, options?: RequestOptions): Promise<T>;
  /** Every object (every page followed), with the list's resourceVersion. */
  list(options?: ApiListOptions): Promise<ListResult<T>>;
  /** POST the object (its namespace from `metadata.namespace` or the option). */
  create(object: T, options?: WriteOptions): Promise<T>;
  /** PUT the object: its `metadata.resourceVersion` makes it conditional (stale: CONFLICT). */
  replace(object: T, options?: WriteOptions): Promise<T>;
  /** PATCH one object with a merge, JSON or strategic merge patch. */
  patch(name: string, patch: unknown, options: PatchOptions): Promise<T>;
  /** Server-side apply (PATCH `application/apply-patch+yaml`, `fieldManager` required). */
  apply(config: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
  /** DELETE one object: resolves with what the server answered (the object, or a Status). */
  delete(name: string, options?: DeleteOptions): Promise<T | V1Status>;
  /** The `status` subresource. */
  readonly status: StatusApi<T>;
  /** The `scale` subresource. */
  readonly scale: ScaleApi;
}
