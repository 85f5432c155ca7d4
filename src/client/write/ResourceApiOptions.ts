import type { ListOptions } from '../../types.js';

/**
 * What every request of a `ResourceApi` takes: the namespace (for a namespaced resource; the
 * object's own `metadata.namespace` where the method takes an object) and an abort signal.
 *
 * @example
 * await api.get('web', { namespace: 'shop', signal: AbortSignal.timeout(5000) });
 */
export interface RequestOptions {
  /**
   * The namespace of a namespaced resource. Methods that take an object read its
   * `metadata.namespace` first; a different value here is refused. A cluster-scoped resource
   * (`namespaced: false`) refuses one (BAD_REQUEST): kube-apiserver would answer 404.
   */
  namespace?: string;
  /** Aborting it aborts the request: the promise rejects with a WatchError (SYSTEM_ERROR, 0). */
  signal?: AbortSignal;
}

/**
 * A list through a `ResourceApi`: every page, as `fromList` pages.
 *
 * @example
 * await api.list({ namespace: 'shop', labelSelector: 'app=web', limit: 100 });
 */
export type ApiListOptions = Pick<
  ListOptions,
  | 'namespace'
  | 'labelSelector'
  | 'fieldSelector'
  | 'resourceVersion'
  | 'resourceVersionMatch'
  | 'limit'
  | 'signal'
  | 'logger'
>;

/**
 * Options of a write: who writes (`fieldManager`) and whether it is only tried (`dryRun`).
 *
 * @example
 * await api.create(configMap, { fieldManager: 'my-operator', dryRun: true });
 */
export interface WriteOptions extends RequestOptions {
  /**
   * The field manager recorded in `metadata.managedFields` (`kubectl get -o yaml
   * --show-managed-fields` names it): at most 128 bytes of printable characters, as the server
   * validates it. Unset: the server names the client.
   */
  fieldManager?: string;
  /** `true` sends `dryRun=All`: the server validates and answers, and stores nothing. */
  dryRun?: boolean;
}

/**
 * The kinds of patch: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge
 * patch (built-in kinds only: lists merge by their keys).
 *
 * @example
 * const type: PatchType = 'merge';
 */
export type PatchType = 'merge' | 'json' | 'strategic';

/**
 * Options of a patch: its type beside the write options.
 *
 * @example
 * await api.patch('web', { spec: { replicas: 2 } }, { namespace: 'shop', type: 'merge' });
 */
export interface PatchOptions extends WriteOptions {
  /** `merge`, `json` or `strategic`: the content type sent. */
  type: PatchType;
}

/**
 * Options of a server-side apply: the field manager is required.
 *
 * @example
 * await api.apply(config, { fieldManager: 'my-operator', force: true });
 */
export interface ApplyOptions extends WriteOptions {
  /** Who owns the applied fields: required for an apply (1 to 128 bytes, printable). */
  fieldManager: string;
  /**
   * `true` takes over fields other managers own with a different value, instead of failing
   * with a CONFLICT that lists them (`error.conflicts`). Only when asked: a controller that
   * forces silently undoes what people and other controllers set.
   */
  force?: boolean;
}

/**
 * Options of a delete (sent as a DeleteOptions body).
 *
 * @example
 * await api.delete('web', { namespace: 'shop', propagationPolicy: 'Foreground' });
 */
export interface DeleteOptions extends RequestOptions {
  /** What happens to dependents: deleted in the background (the default for most kinds), first (Foreground), or kept (Orphan). */
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /** Delete only if the object still has this uid and/or resourceVersion (else CONFLICT). */
  preconditions?: DeletePreconditions;
  /** Seconds before the object is deleted (pods: their termination grace); 0: at once. */
  gracePeriodSeconds?: number;
  /** `true` sends `dryRun=All`. */
  dryRun?: boolean;
}

/**
 * What a delete requires of the object (a failed precondition is a CONFLICT).
 *
 * @example
 * await api.delete('web', { namespace: 'shop', preconditions: { uid: web.metadata!.uid } });
 */
export interface DeletePreconditions {
  /** The object's uid: not a newer object of the same name. */
  uid?: string;
  /** The object's resourceVersion: not changed since it was read. */
  resourceVersion?: string;
}
