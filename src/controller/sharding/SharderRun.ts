import { interval, type Subscription } from 'rxjs';
import { defaultKey } from '../../objects/defaultKey.js';
import { apiVersionOf } from '../../objects/resources.js';
import type { Store } from '../../operators/store/Store.js';
import { metadataOnly } from '../../shapes/metadataOnly.js';
import type { KubernetesObject } from '../../types.js';
import type { LeaseObject } from '../election/leaseApi.js';
import { sharderStep } from './handshake.js';
import { HashRing } from './hashRing.js';
import { LabelWriter } from './LabelWriter.js';
import { heldByMember, leases, memberOf } from './memberLease.js';
import { OwnedFollower } from './OwnedFollower.js';
import { BY_OWNER_UID, ownerUidIndex } from './ownedFollow.js';
import { Reapers } from './Reapers.js';
import type { SharderConfig } from './SharderConfig.js';
import { RING_LABEL, isMemberIdentity } from './shardNames.js';

/** What a look at one object came to (see `SharderRun.look`). */
const DONE = 0;
const WRITING = 1;
const BLOCKED = 2;
type Look = typeof DONE | typeof WRITING | typeof BLOCKED;

/**
 * One run of the sharder (see `sharder`): its watches, its claims, its writes, and the passes
 * that decide them. A pass looks at the primary objects whose watch event came since the last
 * one (`dirty`), not at all of them: an event costs a look at one object (a join of a member
 * to 2 000 objects is some 2 600 writes, each an event, and a look at every object per event
 * was an eighth of the process's CPU). A sweep looks at every object: when the ring or a claim
 * changed, a write failed, and when a claim may be let go (what still names a member is known
 * only from all of them).
 */
export class SharderRun {
  private objects: Store<KubernetesObject, string> | undefined;
  private members: Store<LeaseObject, string> | undefined;
  private readonly owned: OwnedFollower;
  private readonly reapers: Reapers;
  private readonly writer: LabelWriter;
  private readonly subscriptions: Subscription[] = [];
  private pending: Subscription | undefined;
  private pendingDelay = 0;
  private closed = false;
  private ringKey = '';
  private ring = new HashRing([]);
  /**
   * Primary keys with an event since they were last looked at, with the resourceVersion it
   * carried: `unassigned` those it showed without a member (a new object, or a release: its
   * move ends with the next write, so it goes first), `dirty` the others.
   */
  private readonly unassigned = new Map<string, string | undefined>();
  private readonly dirty = new Map<string, string | undefined>();
  /** The next pass looks at every object. */
  private sweep = true;
  /**
   * Since when the backstop's sweep is due (`settings.now()`): it runs at the first pass with
   * no write in flight, or a lease duration after it fell due (a write may hang). While writes
   * are in flight each answer brings a pass, and a sweep of objects mostly waiting for the
   * writer cost ~2 ms every retry period of a 1 000-object move.
   */
  private backstopSince: number | undefined;
  /** The events stream failed: every pass sweeps (the store alone says what changed). */
  private blind = false;
  /**
   * Primary objects (store snapshots: a change is a new object) found needing no write under
   * the current ring and claims: a sweep skips them.
   */
  private settled = new WeakSet<KubernetesObject>();

  constructor(private readonly config: SharderConfig) {
    const { cluster, informers, names, namespace, resource, options, settings, logger } = config;
    const primaryApiVersion = apiVersionOf(resource);
    this.writer = new LabelWriter(
      cluster,
      config.writeConcurrency,
      // A conflict or a gone object: the next event passes again; a fault: retry later.
      (ok) => (ok ? this.soon() : ((this.sweep = true), this.soon(settings.retryPeriodMs))),
      logger,
    );
    this.owned = new OwnedFollower(
      config.owned.map((source) => source.resource),
      names.assignLabel,
      primaryApiVersion,
      this.writer,
    );
    this.reapers = new Reapers(
      cluster,
      namespace,
      names,
      settings,
      () => this.resweep(),
      logger,
      config.observations,
    );
    const selector = `${RING_LABEL}=${names.ring}`;
    const indexes = { [BY_OWNER_UID]: ownerUidIndex(primaryApiVersion) };
    const primary = metadataOnly(resource);
    this.subscriptions.push(
      informers.store(cluster, leases, { namespace, labelSelector: selector }).subscribe({
        next: (store) => {
          this.members = store;
          this.reapers.noticed(store);
          this.soon();
        },
      }),
      // The same upstream as the store below: its events name the objects a pass looks at.
      informers.events(cluster, primary, options).subscribe({
        next: (event) => {
          if (event.type === 'ADDED' || event.type === 'MODIFIED') {
            const { labels, resourceVersion } = event.object.metadata ?? {};
            const to = labels?.[names.assignLabel] ? this.dirty : this.unassigned;
            to.set(defaultKey(event.object), resourceVersion);
          } else if (event.type === 'DELETED') {
            this.writer.forget(defaultKey(event.object));
          } else if (event.type !== 'BOOKMARK') {
            this.sweep = true;
          }
        },
        error: () => ((this.blind = true), (this.sweep = true), this.soon()),
      }),
      informers.store(cluster, primary, options).subscribe({
        next: (store) => ((this.objects = store), this.soon()),
      }),
      // A backstop: a sweep every retry period (settled objects are skipped: a look at each of
      // 2 000 is some tens of µs) finds what an event-driven pass missed. Under heavy load a
      // ring of three once left 3 of 40 objects unassigned for 30 s, every member live, the
      // sharder elected; with it, nothing stays unassigned longer than a retry period once
      // the writes in flight (each of which brings a pass) are answered, a lease at most.
      interval(settings.retryPeriodMs, config.scheduler).subscribe(() => {
        this.backstopSince ??= settings.now();
        this.soon();
      }),
      ...config.owned.map((source, i) =>
        informers
          .store(cluster, metadataOnly(source.resource), source.options, { indexes })
          .subscribe({
            next: (store) => ((this.owned.stores[i] = store as never), this.soon()),
          }),
      ),
    );
  }

  close(): void {
    this.closed = true;
    this.pending?.unsubscribe();
    for (const s of this.subscriptions) s.unsubscribe();
    // A label write in flight is not aborted: a request sent may be applied by the server later
    // still (under load, one aborted was applied 1.3 s after, past a 1 s lease). The claims are
    // held, renewed, until those writes were answered, and only then left to expire: a member
    // whose objects they move takes its Lease back only after they landed.
    const reapers = this.reapers;
    void this.writer.close().then(() => reapers.close());
  }

  /** The ring or a claim changed: every object is looked at again. */
  private resweep(): void {
    this.settled = new WeakSet();
    this.sweep = true;
    this.soon();
  }

  /** One pass soon: many events in one tick make one pass; an event cuts a retry's wait. */
  private soon(delayMs = 0): void {
    if (this.closed) return;
    if (this.pending !== undefined) {
      if (this.pendingDelay <= delayMs) return;
      this.pending.unsubscribe();
    }
    this.pendingDelay = delayMs;
    this.pending = this.config.scheduler.schedule(() => {
      this.pending = undefined;
      this.pass();
    }, delayMs);
  }

  /** The members live now: holding their own Lease, not held by us. */
  private live(): string[] {
    const live: string[] = [];
    for (const lease of this.members?.values() ?? []) {
      const member = memberOf(lease);
      if (member === undefined || !isMemberIdentity(member)) continue;
      // Every member Lease is stood by on: its expiry is judged on our clock.
      if (heldByMember(lease)) this.reapers.watch(member);
      if (heldByMember(lease) && !this.reapers.holds(member)) live.push(member);
    }
    return live.sort();
  }

  private pass(): void {
    if (this.closed || !this.objects || !this.members || !this.owned.synced) return;
    const live = this.live();
    const liveSet = new Set(live);
    const key = live.join(',');
    if (key !== this.ringKey) {
      this.ringKey = key;
      this.ring = new HashRing(live);
      this.settled = new WeakSet();
      this.sweep = true;
    }
    const { now, leaseDurationMs } = this.config.settings;
    const since = this.backstopSince;
    if (since !== undefined && (this.writer.idle || now() - since >= leaseDurationMs)) {
      this.backstopSince = undefined;
      this.sweep = true;
    }
    // What still names a member that is not live is known only from every object.
    if (!this.sweep && this.writer.idle && this.claimsToSettle(liveSet)) this.sweep = true;
    if (this.sweep) this.sweepAll(liveSet);
    else this.passDirty(liveSet);
    this.owned.follow(this.objects, liveSet);
  }

  /**
   * Every object. One the writer has no room for now is left dirty (a pass looks at it once
   * there is room); what still names a member that is not live is found, and the claims with
   * nothing left to move are let go.
   */
  private sweepAll(live: Set<string>): void {
    const { assignLabel } = this.config.names;
    const objects = this.objects!;
    // What the sweep sees covers every event up to the store it reads.
    for (const dirty of [this.unassigned, this.dirty]) {
      for (const [id, version] of dirty) {
        if (objects.get(id)?.metadata?.resourceVersion === version) dirty.delete(id);
      }
    }
    const referenced = new Set<string>();
    for (const object of objects.values()) {
      const current = object.metadata?.labels?.[assignLabel];
      if (current && !live.has(current) && isMemberIdentity(current)) referenced.add(current);
      if (this.settled.has(object)) continue;
      if (this.look(object, live) === BLOCKED) {
        (current ? this.dirty : this.unassigned).set(
          defaultKey(object),
          object.metadata?.resourceVersion,
        );
      }
    }
    this.sweep = this.blind;
    this.settleClaims(referenced, live.size > 0);
  }

  /** The objects with an event since: each stays dirty until looked at in the version it had. */
  private passDirty(live: Set<string>): void {
    const objects = this.objects!;
    for (const dirty of [this.unassigned, this.dirty]) {
      for (const [id, version] of dirty) {
        if (this.writer.full) return;
        const object = objects.get(id);
        if (object === undefined) dirty.delete(id);
        else if (this.look(object, live) !== BLOCKED) {
          if (object.metadata?.resourceVersion === version) dirty.delete(id);
        }
      }
    }
  }

  /**
   * Writes what `object` needs under the ring and claims: `DONE` (nothing to write), `WRITING`
   * (written now: its event, or its failure's sweep, brings the next look), or `BLOCKED` (look
   * again later: the writer is full or writing it, or the objects it owns do not carry its
   * member yet).
   */
  private look(object: KubernetesObject, live: Set<string>): Look {
    const { assignLabel, drainLabel } = this.config.names;
    const id = defaultKey(object);
    if (this.writer.has(id) || this.writer.full) return BLOCKED;
    // Our write changed this view already: its event brings the next look.
    if (this.writer.wrote(id, object.metadata?.resourceVersion)) return WRITING;
    const desired = this.ring.owner(id);
    if (desired === undefined) return DONE;
    const current = object.metadata?.labels?.[assignLabel];
    // Stand by on (or claim) that member's Lease: its objects move once we hold it.
    if (current && !live.has(current) && isMemberIdentity(current)) this.reapers.watch(current);
    const patch = sharderStep(object.metadata?.labels ?? {}, {
      assignLabel,
      drainLabel,
      desired,
      live: (member) => live.has(member),
      claimed: (member) => this.reapers.holds(member),
    });
    if (!patch) {
      this.settled.add(object);
      return DONE;
    }
    // An object is assigned only once the objects it owns carry the same member: its first
    // run there finds them in the member's label-selected stores.
    if (patch[assignLabel] != null && !this.owned.ready(object, desired)) return BLOCKED;
    this.writer.write(this.config.resource, id, object, patch);
    return WRITING;
  }

  /** Whether a claim may be let go or dropped (then a sweep finds what still names it). */
  private claimsToSettle(live: Set<string>): boolean {
    for (const member of this.reapers.members()) {
      if (!live.has(member)) return true;
    }
    return false;
  }

  /**
   * A claim that holds a member's Lease and has nothing left to move is let go (the Lease is
   * deleted: the member may join again at once); one on a Lease gone and unreferenced is
   * dropped. With no live member its objects cannot move at all: holding the claim would only
   * keep that member (perhaps alive, its Lease judged expired across a stall) from joining.
   */
  private settleClaims(referenced: Set<string>, anyLive: boolean): void {
    for (const member of [...this.reapers.members()]) {
      if ((referenced.has(member) && anyLive) || !this.writer.idle) continue;
      const lease = this.members!.get(
        `${this.config.namespace}/${this.config.names.memberLease(member)}`,
      );
      if (this.reapers.holds(member) || lease === undefined || !heldByMember(lease)) {
        this.reapers.forget(member);
      }
    }
  }
}
