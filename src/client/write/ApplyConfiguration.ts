import type { KubernetesObject } from '../../types.js';

/**
 * `T` with every field optional, at every depth (array items too): what a server-side apply
 * sends, only the fields its manager means to own. Dates stay dates.
 *
 * @example
 * const labels: DeepPartial<V1ObjectMeta> = { labels: { app: 'web' } };
 */
export type DeepPartial<T> = T extends Date
  ? T
  : T extends readonly (infer U)[]
    ? DeepPartial<U>[]
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

/**
 * The metadata type of `T` (V1ObjectMeta for the built-in kinds).
 *
 * @example
 * const meta: MetadataOf<V1Pod> = { name: 'web-1' };
 */
export type MetadataOf<T> = T extends WithMetadata ? NonNullable<T['metadata']> : never;

/** An object that may have metadata: what {@link MetadataOf} looks into. */
export interface WithMetadata {
  /** The object's metadata. */
  metadata?: unknown;
}

/** What every apply configuration's metadata carries. */
export interface ApplyMetadata {
  /** The object's name: required, an apply names one object. */
  name: string;
  /** Its namespace, for a namespaced resource (else the `namespace` option). */
  namespace?: string;
}

/**
 * What `resourceApi(...).apply` sends: a deep partial of `T` with `metadata.name` required, so
 * the fields a controller does not set are not sent and it never takes ownership of zero values
 * (the trap of typed Go and Rust structs, where an unset `replicas: 0` is applied as owned).
 *
 * `apiVersion` and `kind` are optional in the type because the resource ref usually carries
 * them (the built-in refs and `resource(..., { kind })` do): `apply` fills them from the ref, and
 * refuses (BAD_REQUEST, before sending) a configuration that has neither a `kind` nor a ref with
 * one, or whose `apiVersion` or `kind` differ from the ref's.
 *
 * @example
 * const config: ApplyConfiguration<V1Deployment> = {
 *   metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
 *   spec: { replicas: 3 },
 * };
 * await resourceApi(kc, deployments).apply(config, { fieldManager: 'my-operator' });
 */
export type ApplyConfiguration<T = KubernetesObject> = DeepPartial<
  Omit<T, 'apiVersion' | 'kind' | 'metadata'>
> & {
  /** `group/version` (`v1` for the core group): the ref's when absent. */
  apiVersion?: string;
  /** The kind, e.g. `'Deployment'`: the ref's when absent. */
  kind?: string;
  /** The object's metadata: `name` is required, `namespace` where the resource is namespaced. */
  metadata: DeepPartial<MetadataOf<T>> & ApplyMetadata;
};
