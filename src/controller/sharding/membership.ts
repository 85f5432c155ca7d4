import { Observable, distinctUntilChanged } from 'rxjs';
import type { Cluster } from '../../types.js';
import { Elector } from '../election/Elector.js';
import { electionSettings } from '../election/electionSettings.js';
import type { LeaderElectionConfig } from '../LeaderElectionConfig.js';
import { fencedLeaseApi } from './fencedLeaseApi.js';
import type { LeaseApi, LeaseObject } from '../election/leaseApi.js';
import { isClaimHolder, memberHolder, memberLeaseApi } from './memberLease.js';
import type { MemberFence } from './MemberFence.js';
import type { ShardNames } from './shardNames.js';

/** What `membership` needs besides the cluster: the ring's names and the election's settings. */
export interface MembershipConfig extends Omit<LeaderElectionConfig, 'name'> {
  names: ShardNames;
  /**
   * Resolves once the runs this member started have ended: the Lease is released only then
   * (or after `renewDeadlineMs`), so no other member is given a key whose run still goes on.
   */
  settled: () => Promise<unknown>;
  /** Told of every successful write of the Lease as ours (what a run checks before it starts). */
  fence?: MemberFence;
  /**
   * Told as each incarnation joins, before `true` is emitted, whether it inherits what it finds
   * labelled for it: it took its Lease over from a sharder's claim, or created it afresh (a
   * claim let go deletes the Lease). Either way a sharder moved this member's objects, and a
   * move it sent may still be applied by the server. Not so when the Lease was free (a member
   * releases it so) or held by an earlier incarnation of this member (no claim came between).
   */
  onJoined?: (inherits: boolean) => void;
}

/** Whether an incarnation that took its Lease over from `before` inherits a claim's moves. */
function inherits(before: LeaseObject | undefined | null): boolean {
  if (before === undefined || before === null) return true;
  return isClaimHolder(before.spec?.holderIdentity ?? '');
}

/**
 * This process's membership of a ring: `true` while it holds its own Lease, `false` while not.
 * It is leader election over the member's Lease (the same Elector: renewed every
 * `retryPeriodMs`, lost when no renewal succeeded for `renewDeadlineMs`, expiry judged on the
 * observer's monotonic clock), with two differences:
 *
 * - The holder is `<identity>/<incarnation>`, and a member that lost its Lease gives up that
 *   incarnation and joins again as a new one: it acts again only once it holds the Lease anew,
 *   after its old record expired (or a sharder released it), never by renewing the old record.
 * - Unsubscribing releases the Lease only once the runs in flight settled (`settled`, bounded by
 *   `renewDeadlineMs`), so the sharder moves the member's keys only after their runs ended.
 *
 * ```
 * renewals:  ok ok ok x x x x(renewDeadline) ........ (Lease expired or freed) ok
 * output:    f-t-----------f-------------------------------------------------t
 * ```
 *
 * @example
 * membership(kc, { namespace: 'ops', identity: 'pod-1', names, settled }).subscribe(log);
 */
export function membership(cluster: Cluster, config: MembershipConfig): Observable<boolean> {
  const { names, settled, identity, namespace, logger, fence, onJoined } = config;
  // Checked once at call time (RangeError, TypeError), as leaderElection checks.
  const checked = electionSettings({ ...config, name: names.memberLease(identity) });
  const leases = memberLeaseApi(cluster, namespace, names, identity, logger);
  const api = fence ? fencedLeaseApi(leases, checked.now, fence) : leases;
  return new Observable<boolean>((subscriber) => {
    let elector: Elector | undefined;
    let closed = false;
    const join = () => {
      fence?.reset();
      const settings = { ...checked, identity: memberHolder(identity) };
      let held = false;
      // The Lease as the read before our winning write found it (`null`: none read yet).
      let before: LeaseObject | undefined | null = null;
      const reading: LeaseApi = {
        ...api,
        get: async (signal) => {
          const got = await api.get(signal);
          if (got.ok) before = got.value;
          return got;
        },
      };
      const current = new Elector(reading, settings, (leading) => {
        if (leading && !held) onJoined?.(inherits(before));
        if (leading) held = true;
        subscriber.next(leading);
        if (!leading && held) {
          // Lost: this incarnation is over. A new one joins after the Elector's try ends.
          held = false;
          checked.scheduler.schedule(() => {
            current.stop();
            if (!closed && elector === current) join();
          });
        }
      });
      elector = current;
      current.start();
    };
    join();
    return () => {
      closed = true;
      const last = elector;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        timeout.unsubscribe();
        last?.stop();
      };
      const timeout = checked.scheduler.schedule(finish, checked.renewDeadlineMs);
      void settled().then(finish, finish);
    };
  }).pipe(distinctUntilChanged());
}
