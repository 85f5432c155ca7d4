import { requestJson } from '../../client/request/requestJson.js';
import { resourcePath } from '../../objects/resourcePath.js';
import type { Cluster, Logger, ResourceRef } from '../../types.js';
import { leaseApi, type LeaseApi, type LeaseObject } from '../election/leaseApi.js';
import { MEMBER_LABEL, RING_LABEL, type ShardNames } from './shardNames.js';

/**
 * Leader election's {@link LeaseApi} for the Lease `name`, which carries `labels`: set when it
 * is created, and added at the next write when a Lease written before lacks them (the Elector
 * writes back what it read, so they stay).
 */
function labelledLeaseApi(
  cluster: Cluster,
  namespace: string,
  name: string,
  labels: Record<string, string>,
  logger: Logger | undefined,
): LeaseApi {
  const api = leaseApi(cluster, namespace, name, logger);
  const labelled = (lease: LeaseObject): LeaseObject => {
    const current = lease.metadata.labels as Record<string, string> | undefined;
    if (Object.entries(labels).every(([key, value]) => current?.[key] === value)) return lease;
    return { ...lease, metadata: { ...lease.metadata, labels: { ...current, ...labels } } };
  };
  return {
    get: (signal) => api.get(signal),
    create: (lease, signal) => api.create(labelled(lease), signal),
    update: (lease, signal) => api.update(labelled(lease), signal),
  };
}

/**
 * The {@link LeaseApi} of one member's Lease (`<ring>.<member>`): leader election's, except that
 * the Lease carries the ring's labels (`shard.kube-rx.io/ring`, so the sharder finds every
 * member with one label-selected watch, and `shard.kube-rx.io/member`, so a Lease a sharder
 * holds still says whose it is).
 *
 * @example
 * const api = memberLeaseApi(kc, 'operators', shardNames(config), 'pod-1');
 */
export function memberLeaseApi(
  cluster: Cluster,
  namespace: string,
  names: ShardNames,
  member: string,
  logger?: Logger,
): LeaseApi {
  const labels = { [RING_LABEL]: names.ring, [MEMBER_LABEL]: member };
  return labelledLeaseApi(cluster, namespace, names.memberLease(member), labels, logger);
}

/**
 * The {@link LeaseApi} of the ring's sharder Lease (named after the ring): leader election's,
 * except that the Lease carries the ring's label (`shard.kube-rx.io/ring`, no member label), so
 * the members' one label-selected watch of the ring's Leases sees it too: a sharder that stops
 * is followed at once.
 *
 * @example
 * electionOver(sharderLeaseApi(kc, 'operators', shardNames(config)), settings);
 */
export function sharderLeaseApi(
  cluster: Cluster,
  namespace: string,
  names: ShardNames,
  logger?: Logger,
): LeaseApi {
  const labels = { [RING_LABEL]: names.ring };
  return labelledLeaseApi(cluster, namespace, names.sharderLease, labels, logger);
}

/** The Lease resource (coordination.k8s.io/v1). */
export const leases: ResourceRef<LeaseObject> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
};

/**
 * The {@link LeaseApi} of the sharder's claim on a member's Lease: {@link memberLeaseApi}'s,
 * except that a release (the Elector's update clearing the holder) deletes the Lease instead,
 * on the resourceVersion the claim last wrote (409 if anyone wrote since: the Elector reads it
 * again and deletes only if it is still ours). A released claim is a member gone for good (its
 * objects moved): its Lease would otherwise stay in the namespace for ever, one per pod name
 * the ring ever had. A member that comes back finds no Lease and creates it, as a new one does.
 *
 * @example
 * new Elector(claimLeaseApi(kc, 'ops', names, 'pod-2'), settings, onHolding);
 */
export function claimLeaseApi(
  cluster: Cluster,
  namespace: string,
  names: ShardNames,
  member: string,
  logger?: Logger,
): LeaseApi {
  const api = memberLeaseApi(cluster, namespace, names, member, logger);
  const path = resourcePath(leases, { namespace, name: names.memberLease(member) });
  return {
    ...api,
    update: async (lease, signal) => {
      if (lease.spec?.holderIdentity !== '') return api.update(lease, signal);
      const deleted = await requestJson<unknown>(cluster, {
        method: 'DELETE',
        path,
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          preconditions: { resourceVersion: lease.metadata.resourceVersion },
        },
        signal,
        logger,
      });
      // Gone already is as good as deleted.
      if (deleted.ok || deleted.error.statusCode === 404) return { ok: true, value: lease };
      return deleted;
    },
  };
}

/**
 * The holder a member writes in its Lease: its identity and a fresh incarnation. Two processes
 * with one identity never both hold the Lease (the second sees another holder and waits, as a
 * standby does), and a member that lost its Lease comes back as a new holder, never renewing
 * the old record.
 *
 * @example
 * memberHolder('pod-1'); // 'pod-1/3f9a0c1e'
 */
export function memberHolder(identity: string): string {
  return `${identity}/${globalThis.crypto.randomUUID().slice(0, 8)}`;
}

/** What starts the holder a sharder writes in a member's Lease it claims. */
const CLAIM_PREFIX = 'reaper:';

/**
 * The holder a sharder writes in the member Leases it claims: `reaper:` and its own holder.
 *
 * @example
 * claimHolder('pod-1'); // 'reaper:pod-1/3f9a0c1e'
 */
export function claimHolder(identity: string): string {
  return `${CLAIM_PREFIX}${memberHolder(identity)}`;
}

/** Whether `holder` is a sharder's claim ({@link claimHolder}). */
export function isClaimHolder(holder: string): boolean {
  return holder.startsWith(CLAIM_PREFIX);
}

/** Whether `lease` is held by an incarnation of its member (not free, not held by a sharder). */
export function heldByMember(lease: LeaseObject): boolean {
  const member = (lease.metadata.labels as Record<string, string> | undefined)?.[MEMBER_LABEL];
  const holder = lease.spec?.holderIdentity ?? '';
  return member !== undefined && holder.startsWith(`${member}/`);
}

/** The member a Lease of the ring is for. */
export function memberOf(lease: LeaseObject): string | undefined {
  return (lease.metadata.labels as Record<string, string> | undefined)?.[MEMBER_LABEL];
}
