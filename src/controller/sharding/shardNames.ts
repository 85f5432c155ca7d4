import { assertObjectArgument, quoteValue } from '../../objects/argumentChecks.js';
import type { ShardingConfig } from './ShardingConfig.js';

/** The label prefix of assignments: `shard.kube-rx.io/<ring>: <member>`. */
const ASSIGN_PREFIX = 'shard.kube-rx.io/';
/** The label of a move in progress: `drain.shard.kube-rx.io/<ring>: "true"`. */
const DRAIN_PREFIX = 'drain.shard.kube-rx.io/';
/** The label every member Lease of a ring carries: `shard.kube-rx.io/ring: <ring>`. */
export const RING_LABEL = 'shard.kube-rx.io/ring';
/** The label naming the member a Lease is for (its holder may be someone else: a sharder). */
export const MEMBER_LABEL = 'shard.kube-rx.io/member';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const IDENTITY = /^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

/**
 * The names a ring uses, derived from its config: the assignment and drain labels, the
 * sharder's Lease (the ring's name) and each member's Lease (`<ring>.<identity>`: the ring has
 * no dot, so two rings' member Leases never collide, nor with a sharder's Lease).
 *
 * @example
 * const names = shardNames({ ring: 'web', namespace: 'ops', identity: 'pod-1' });
 * names.assignLabel; // 'shard.kube-rx.io/web'
 * names.memberLease('pod-1'); // 'web.pod-1'
 */
export interface ShardNames {
  ring: string;
  assignLabel: string;
  drainLabel: string;
  sharderLease: string;
  memberLease(identity: string): string;
  /** The label selector of one member's objects. */
  selectorOf(identity: string): string;
}

/**
 * Checks a {@link ShardingConfig}'s names, throwing a `TypeError` that names the bad field, and
 * derives the ring's names from them.
 *
 * @example
 * shardNames({ ring: 'Web', namespace: 'ops', identity: 'pod-1' });
 * // TypeError: controller: config.sharding.ring must be a DNS-1123 label of at most 40 characters: "Web"
 */
export function shardNames(config: ShardingConfig): ShardNames {
  assertObjectArgument('controller', 'config.sharding', config);
  const { ring, namespace, identity } = config;
  if (typeof ring !== 'string' || ring.length > 40 || !DNS_LABEL.test(ring)) {
    throw new TypeError(
      `controller: config.sharding.ring must be a DNS-1123 label of at most 40 characters: ${quoteValue(ring)}`,
    );
  }
  if (typeof namespace !== 'string' || namespace.length > 63 || !DNS_LABEL.test(namespace)) {
    throw new TypeError(
      `controller: config.sharding.namespace must be a DNS-1123 label: ${quoteValue(namespace)}`,
    );
  }
  if (typeof identity !== 'string' || identity.length > 63 || !IDENTITY.test(identity)) {
    throw new TypeError(
      'controller: config.sharding.identity must be lowercase letters, digits, "-" and "." (at most 63, starting ' +
        `and ending with a letter or digit), as it is a label value: ${quoteValue(identity)}`,
    );
  }
  const assignLabel = ASSIGN_PREFIX + ring;
  return {
    ring,
    assignLabel,
    drainLabel: DRAIN_PREFIX + ring,
    sharderLease: ring,
    memberLease: (member) => `${ring}.${member}`,
    selectorOf: (member) => `${assignLabel}=${member}`,
  };
}

/** Whether `identity` can be a member of a ring (a label value we accept). */
export function isMemberIdentity(identity: string | undefined): identity is string {
  return typeof identity === 'string' && identity.length <= 63 && IDENTITY.test(identity);
}
