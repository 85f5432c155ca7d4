import type { Cluster, Logger } from '../../types.js';
import { leaseApi, type LeaseApi, type LeaseObject } from '../election/leaseApi.js';
import { MEMBER_LABEL, RING_LABEL, type ShardNames } from './shardNames.js';

/**
 * The {@link LeaseApi} of one member's Lease (`<ring>.<member>`): leader election's, except that
 * a Lease it creates carries the ring's labels (`shard.kube-rx.io/ring`, so the sharder finds
 * every member with one label-selected watch, and `shard.kube-rx.io/member`, so a Lease a
 * sharder holds still says whose it is). Updates keep the labels: the Elector writes back what
 * it read.
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
  const api = leaseApi(cluster, namespace, names.memberLease(member), logger);
  return {
    get: (signal) => api.get(signal),
    update: (lease, signal) => api.update(lease, signal),
    create: (lease, signal) =>
      api.create(
        {
          ...lease,
          metadata: {
            ...lease.metadata,
            labels: { [RING_LABEL]: names.ring, [MEMBER_LABEL]: member },
          },
        },
        signal,
      ),
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
