import type { Store } from '../../operators/store/Store.js';
import type { Cluster, Logger } from '../../types.js';
import type { LeaseObject } from '../election/leaseApi.js';
import { Elector } from '../election/Elector.js';
import type { ElectionSettings } from '../election/electionSettings.js';
import { fencedLeaseApi } from './fencedLeaseApi.js';
import { claimLeaseApi } from './memberLease.js';
import { MemberFence } from './MemberFence.js';
import { LeaseObservations } from './LeaseObservations.js';
import type { ShardNames } from './shardNames.js';

/**
 * The sharder's claims on members' Leases, one Elector per member it watches, standing by as a
 * leader-election standby does: it takes a member's Lease only when it is free (released) or
 * expired by the sharder's own observation (`leaseDurationMs` after it saw the record last
 * change, on its monotonic clock), or creates it when there is none (a label naming a member
 * that never joined). While it holds the Lease, that member cannot act (it would have to hold
 * its Lease), so its objects may move without a drain. What the Elector guarantees a leader
 * (it stops holding when its renewals fail for `renewDeadlineMs`) keeps a returning member
 * from acting before the sharder stopped moving its objects. A claim let go deletes the Lease
 * (`claimLeaseApi`): released claims do not pile up, and the member, if it ever comes back,
 * creates its Lease anew.
 *
 * @example
 * const reapers = new Reapers(kc, 'ops', names, settings, () => pass());
 * reapers.watch('pod-2'); // stand by on web.pod-2
 * reapers.holds('pod-2'); // true once its Lease expired and is ours
 */
export class Reapers {
  private electors = new Map<
    string,
    { elector: Elector; holding: boolean; fence: MemberFence; unwatch: () => void }
  >();
  /** When this process first saw each of the ring's Leases as it is (shared with the member). */
  private readonly observations: LeaseObservations;

  constructor(
    private readonly cluster: Cluster,
    private readonly namespace: string,
    private readonly names: ShardNames,
    private readonly settings: ElectionSettings,
    private readonly changed: () => void,
    private readonly logger?: Logger,
    observations?: LeaseObservations,
  ) {
    this.observations = observations ?? new LeaseObservations(settings.now);
  }

  /**
   * The ring's Leases as the sharder's watch shows them now: each claim judges expiry from its
   * earliest sighting of a record. Its own reads, a retry period apart, see a dead member's
   * last renewal up to a retry period after the watch did: half a retry period later, on
   * average, its objects would start to move.
   */
  noticed(store: Store<LeaseObject, string>): void {
    // Each claim is told of its Lease's new records (see `watch`).
    this.observations.update(store);
  }

  private leaseName(member: string): string {
    return `${this.namespace}/${this.names.memberLease(member)}`;
  }

  /** Stands by on `member`'s Lease (no-op when already). */
  watch(member: string): void {
    if (this.electors.has(member)) return;
    // A claim is fenced on the clock as a member's runs are: after an event-loop stall, a pass
    // may run before the timer that ends the claim, and move the objects of a member whose
    // Lease, the claim lapsed, it has meanwhile taken again and acts on.
    const { now, renewDeadlineMs } = this.settings;
    const fence = new MemberFence(now, renewDeadlineMs);
    const api = fencedLeaseApi(
      claimLeaseApi(this.cluster, this.namespace, this.names, member, this.logger),
      now,
      fence,
    );
    const elector: Elector = new Elector(api, this.settings, (holding) => {
      if (entry.holding === holding) return;
      entry.holding = holding;
      this.changed();
    });
    // What this process saw of the Lease, before it was the sharder too, counts: expiry is
    // judged from when it first saw each record, on its own clock.
    const unwatch = this.observations.watch(this.leaseName(member), (lease, at) =>
      elector.notice(lease, at),
    );
    const entry = { elector, holding: false, fence, unwatch };
    this.electors.set(member, entry);
    elector.start();
  }

  /**
   * Whether we hold `member`'s Lease now: it cannot act, its objects may move at once. Read on
   * the clock: not past `renewDeadlineMs` after the last successful write was sent.
   */
  holds(member: string): boolean {
    const entry = this.electors.get(member);
    return entry?.holding === true && entry.fence.holds();
  }

  /** The members stood by on. */
  members(): IterableIterator<string> {
    return this.electors.keys();
  }

  /** Stops standing by on `member` (deleting its Lease if held: it may join at once). */
  forget(member: string): void {
    const entry = this.electors.get(member);
    if (!entry) return;
    this.electors.delete(member);
    entry.unwatch();
    entry.elector.stop();
  }

  /**
   * Stops every claim (the sharder lost its role or was unsubscribed), leaving each to expire:
   * the label writes it aborted may still be applied by the server (a request sent is not
   * unsent), so the member must not take its Lease back and list objects still labelled for it
   * while they land. A claim released here was, under load, a key run on two members at once.
   * The next sharder stands by on the claim as on any Lease; the member waits a lease duration.
   */
  close(): void {
    const electors = this.electors;
    this.electors = new Map();
    for (const entry of electors.values()) {
      entry.unwatch();
      entry.elector.stop(false);
    }
  }
}
