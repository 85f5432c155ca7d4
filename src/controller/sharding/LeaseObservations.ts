import { recordKey } from '../election/Elector.js';
import type { LeaseObject } from '../election/leaseApi.js';
import type { Store } from '../../operators/store/Store.js';

/** A Lease record as this process first saw it, and when (on its monotonic clock). */
export type LeaseSighting = (lease: LeaseObject, at: number) => void;

/**
 * When this process first saw each Lease of a ring as it is now (its record: version, holder,
 * renew time), on its own monotonic clock. Every member keeps it from its start (one
 * label-selected watch of the ring's Leases, the one the sharder reads too), so a member that
 * becomes the sharder seeds its claims with it: a dead member's Lease that nobody renewed
 * for a lease duration of *this process's* observation is taken at once, where a sharder that
 * had just started watching would wait a whole lease duration more. Candidates for a Lease
 * (the sharder's claims, the members' election of the sharder) `watch` it: each new record
 * is told to them as it is first seen.
 *
 * @example
 * const seen = new LeaseObservations(() => performance.now());
 * leases$.subscribe((store) => seen.update(store));
 * const stop = seen.watch('ops/web.pod-2', (lease, at) => elector.notice(lease, at));
 */
export class LeaseObservations {
  private readonly seen = new Map<string, { key: string; lease: LeaseObject; at: number }>();
  /** The snapshot taken in last: the member and its sharder both hand each one over. */
  private last: Store<LeaseObject, string> | undefined;
  private readonly sightings = new Map<string, Set<LeaseSighting>>();

  constructor(private readonly now: () => number) {}

  /** Takes the store's Leases in: a record not seen before is stamped now. */
  update(store: Store<LeaseObject, string>): void {
    if (store === this.last) return;
    this.last = store;
    const present = new Set<string>();
    const changed: string[] = [];
    for (const lease of store.values()) {
      const name = `${lease.metadata.namespace ?? ''}/${lease.metadata.name}`;
      present.add(name);
      const key = recordKey(lease);
      if (this.seen.get(name)?.key === key) continue;
      this.seen.set(name, { key, lease, at: this.now() });
      if (this.sightings.has(name)) changed.push(name);
    }
    for (const name of this.seen.keys()) if (!present.has(name)) this.seen.delete(name);
    for (const name of changed) {
      const { lease, at } = this.seen.get(name)!;
      for (const sighting of this.sightings.get(name) ?? []) sighting(lease, at);
    }
  }

  /**
   * Tells `sighting` of each new record of the Lease `namespace/name`, as first seen (now, if
   * one is known already); returns how to stop.
   */
  watch(name: string, sighting: LeaseSighting): () => void {
    const set = this.sightings.get(name) ?? new Set<LeaseSighting>();
    this.sightings.set(name, set);
    set.add(sighting);
    const seen = this.seen.get(name);
    if (seen) sighting(seen.lease, seen.at);
    return () => {
      set.delete(sighting);
      if (set.size === 0) this.sightings.delete(name);
    };
  }
}
