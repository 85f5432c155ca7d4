import { requestJson } from '../../client/request/requestJson.js';
import { resourcePath } from '../../objects/resourcePath.js';
import type { Cluster, Logger, ResourceRef } from '../../types.js';
import type { WatchError } from '../../WatchError.js';

/** The fields of a `coordination.k8s.io/v1` Lease that leader election reads and writes. */
export interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** MicroTime: RFC 3339 with microseconds. */
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
    [k: string]: unknown;
  };
}

/** An answer: the value, or the failure as a {@link WatchError} (409 Conflict included). */
export type LeaseResult<T> = { ok: true; value: T } | { ok: false; error: WatchError };

/** Reads and writes one Lease; every call is bounded by its signal and never rejects. */
export interface LeaseApi {
  /** The Lease, or `undefined` when there is none (404). */
  get(signal: AbortSignal): Promise<LeaseResult<LeaseObject | undefined>>;
  /** Creates it (409 AlreadyExists when another replica was first). */
  create(lease: LeaseObject, signal: AbortSignal): Promise<LeaseResult<LeaseObject>>;
  /** Replaces it; `metadata.resourceVersion` must be the one read (409 Conflict otherwise). */
  update(lease: LeaseObject, signal: AbortSignal): Promise<LeaseResult<LeaseObject>>;
}

const leases: ResourceRef<LeaseObject> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
};

/**
 * The {@link LeaseApi} of `namespace/name` over the one request core. The paths are built (and
 * every segment validated) here, so invalid names throw a `WatchError` BAD_REQUEST at once.
 * `logger` hears what resolving the connection warns about (credentials withheld over plain
 * HTTP).
 *
 * @example
 * const api = leaseApi(kc, 'operators', 'my-operator');
 * const got = await api.get(AbortSignal.timeout(5_000));
 */
export function leaseApi(
  cluster: Cluster,
  namespace: string,
  name: string,
  logger?: Logger,
): LeaseApi {
  const collection = resourcePath(leases, { namespace });
  const one = resourcePath(leases, { namespace, name });
  return {
    async get(signal) {
      const got = await requestJson<LeaseObject>(cluster, {
        method: 'GET',
        path: one,
        signal,
        logger,
      });
      if (got.ok) return { ok: true, value: got.value };
      if (got.error.statusCode === 404) return { ok: true, value: undefined };
      return got;
    },
    async create(lease, signal) {
      const body = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        ...lease,
        metadata: { ...lease.metadata, name, namespace },
      };
      return requestJson<LeaseObject>(cluster, {
        method: 'POST',
        path: collection,
        body,
        signal,
        logger,
      });
    },
    async update(lease, signal) {
      return requestJson<LeaseObject>(cluster, {
        method: 'PUT',
        path: one,
        body: lease,
        signal,
        logger,
      });
    },
  };
}
