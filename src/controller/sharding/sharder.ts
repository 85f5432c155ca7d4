import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { resourceApi } from '../../client/write/resourceApi.js';
import { defaultKey } from '../../objects/defaultKey.js';
import { apiVersionOf } from '../../objects/resources.js';
import { resourceIdentity } from '../../objects/resourceIdentity.js';
import type { Informers } from '../../operators/createInformers.js';
import type { Store } from '../../operators/store/Store.js';
import { metadataOnly } from '../../shapes/metadataOnly.js';
import type { Cluster, KubernetesObject, Logger, ResourceRef, WatchOptions } from '../../types.js';
import type { ElectionSettings } from '../election/electionSettings.js';
import type { LeaseObject } from '../election/leaseApi.js';
import { sharderStep, type LabelPatch } from './handshake.js';
import { HashRing } from './hashRing.js';
import { heldByMember, leases, memberOf } from './memberLease.js';
import type { LeaseObservations } from './LeaseObservations.js';
import { BY_OWNER_UID, ownedTarget, ownerOf, ownerUidIndex } from './ownedFollow.js';
import { Reapers } from './Reapers.js';
import { RING_LABEL, isMemberIdentity, type ShardNames } from './shardNames.js';

/** A watched resource and its watch options (namespace, the user's selectors). */
export interface SharderSource {
  resource: ResourceRef<any>;
  options: WatchOptions;
}

/** What the sharder needs: the ring, the primary resource and where its Leases live. */
export interface SharderConfig {
  cluster: Cluster;
  informers: Informers;
  names: ShardNames;
  namespace: string;
  /** The primary resource and its watch options (namespace, the user's selectors). */
  resource: ResourceRef<any>;
  options: WatchOptions;
  /** The owned resources: each object follows its controller owner's assignment. */
  owned: SharderSource[];
  /** The Elector settings of the sharder's claims on members' Leases (its holder identity). */
  settings: ElectionSettings;
  /** This member's observations of the ring's Leases since it started: its claims start from them. */
  observations?: LeaseObservations;
  /** Label writes in flight at once (`ShardingConfig.writeConcurrency`). */
  writeConcurrency: number;
  scheduler: SchedulerLike;
  logger?: Logger | undefined;
}

/**
 * The sharder, run while this member holds the ring's sharder Lease (`whileLeader`): it watches
 * the members' Leases (label-selected) and the primary objects metadata-only, and writes each
 * object's assignment label. Stateless beyond what it watches: a new sharder continues from the
 * labels. Unsubscribing stops it at once (no write starts after; those in flight are aborted).
 *
 * For each object, with `desired` its member on the hash ring of live members:
 * - no assignment (or a label naming something that cannot be a member): assign `desired`;
 * - assigned to a live member other than `desired` and not draining: mark it draining (that
 *   member stops the key and clears both labels; the object is then unassigned);
 * - assigned to a member that is not live: once the sharder holds that member's Lease (expired
 *   or freed by its own observation, or created: see {@link Reapers}), assign `desired` at once.
 *
 * A live member holds its own Lease by an incarnation of itself (`<member>/<incarnation>`) and
 * the sharder does not hold it. Every write is a merge patch carrying the resourceVersion the
 * sharder saw: a conflict means a stale view, and the next event brings the next pass.
 *
 * @example
 * sharder(config).pipe(whileLeader(leaderElection(kc, { namespace, name: ring, identity })));
 */
export function sharder(config: SharderConfig): Observable<never> {
  return new Observable<never>(() => {
    const run = new Sharder(config);
    return () => run.close();
  });
}

class Sharder {
  private objects: Store<KubernetesObject, string> | undefined;
  private members: Store<LeaseObject, string> | undefined;
  private readonly owned: Array<Store<KubernetesObject, typeof BY_OWNER_UID> | undefined>;
  private readonly reapers: Reapers;
  private readonly writing = new Set<string>();
  /** One per write in flight (one shared signal would collect a listener per request). */
  private readonly aborts = new Set<AbortController>();
  private readonly subscriptions: Subscription[] = [];
  private pending: Subscription | undefined;
  private pendingDelay = 0;
  private closed = false;
  private ringKey = '';
  private ring = new HashRing([]);
  /**
   * Primary objects (store snapshots: a change is a new object) found needing no write under
   * the current ring and claims: a pass skips them, so one event costs a look at one object,
   * not at all of them (2 000 objects assigned 32 at a time made 2 000 full passes).
   */
  private settled = new WeakSet<KubernetesObject>();
  /** Owned objects found following the owner snapshot they map to. */
  private followed = new WeakMap<KubernetesObject, KubernetesObject>();
  private readonly primaryApiVersion: string;

  constructor(private readonly config: SharderConfig) {
    const { cluster, informers, names, namespace, resource, options, settings, logger } = config;
    this.primaryApiVersion = apiVersionOf(resource);
    this.reapers = new Reapers(
      cluster,
      namespace,
      names,
      settings,
      () => ((this.settled = new WeakSet()), this.soon()),
      logger,
      config.observations,
    );
    const selector = `${RING_LABEL}=${names.ring}`;
    this.owned = config.owned.map(() => undefined);
    const indexes = { [BY_OWNER_UID]: ownerUidIndex(this.primaryApiVersion) };
    this.subscriptions.push(
      informers.store(cluster, leases, { namespace, labelSelector: selector }).subscribe({
        next: (store) => ((this.members = store), this.soon()),
      }),
      informers.store(cluster, metadataOnly(resource), options).subscribe({
        next: (store) => ((this.objects = store), this.soon()),
      }),
      ...config.owned.map((source, i) =>
        informers
          .store(cluster, metadataOnly(source.resource), source.options, { indexes })
          .subscribe({
            next: (store) => ((this.owned[i] = store as never), this.soon()),
          }),
      ),
    );
  }

  close(): void {
    this.closed = true;
    this.pending?.unsubscribe();
    for (const abort of this.aborts) abort.abort();
    for (const s of this.subscriptions) s.unsubscribe();
    this.reapers.close();
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

  private get full(): boolean {
    return this.writing.size >= this.config.writeConcurrency;
  }

  private pass(): void {
    if (this.closed || !this.objects || !this.members) return;
    if (this.owned.some((store) => store === undefined)) return;
    const { assignLabel, drainLabel } = this.config.names;
    const live = this.live();
    const liveSet = new Set(live);
    const key = live.join(',');
    if (key !== this.ringKey) {
      this.ringKey = key;
      this.ring = new HashRing(live);
      this.settled = new WeakSet();
    }
    const referenced = new Set<string>();
    for (const object of this.objects.values()) {
      const current = object.metadata?.labels?.[assignLabel];
      if (current && !liveSet.has(current) && isMemberIdentity(current)) referenced.add(current);
      if (this.settled.has(object)) continue;
      const id = defaultKey(object);
      if (this.writing.has(id) || this.full) continue;
      const desired = this.ring.owner(id);
      if (desired === undefined) continue;
      if (current && !liveSet.has(current) && isMemberIdentity(current)) {
        // Stand by on (or claim) that member's Lease: its objects move once we hold it.
        this.reapers.watch(current);
      }
      const patch = sharderStep(object.metadata?.labels ?? {}, {
        assignLabel,
        drainLabel,
        desired,
        live: (member) => liveSet.has(member),
        claimed: (member) => this.reapers.holds(member),
      });
      if (!patch) this.settled.add(object);
      // An object is assigned only once the objects it owns carry the same member: its first
      // run there finds them in the member's label-selected stores.
      else if (patch[assignLabel] == null || this.ownedFollow(object, desired)) {
        this.write(this.config.resource, id, object, patch);
      }
    }
    this.followOwners(liveSet);
    // A claim that holds a member's Lease and has nothing left to move is let go (the Lease is
    // deleted: the member may join again at once); one on a Lease gone and unreferenced is dropped.
    // With no live member its objects cannot move at all: holding the claim would only keep that
    // member (perhaps alive, its Lease judged expired across a stall) from ever joining again.
    for (const member of [...this.reapers.members()]) {
      if ((referenced.has(member) && live.length > 0) || this.writing.size > 0) continue;
      const lease = this.members.get(
        `${this.config.namespace}/${this.config.names.memberLease(member)}`,
      );
      if (this.reapers.holds(member) || lease === undefined || !heldByMember(lease)) {
        this.reapers.forget(member);
      }
    }
  }

  /**
   * Whether every object `owner` controls carries `member`, writing those that do not (the
   * owner waits for them: `false`).
   */
  private ownedFollow(owner: KubernetesObject, member: string): boolean {
    const uid = owner.metadata?.uid;
    if (!uid) return true;
    let ready = true;
    this.config.owned.forEach((source, i) => {
      for (const object of this.owned[i]!.byIndex(BY_OWNER_UID, uid)) {
        if (object.metadata?.labels?.[this.config.names.assignLabel] === member) continue;
        ready = false;
        const id = `${resourceIdentity(source.resource)} ${defaultKey(object)}`;
        if (this.writing.has(id) || this.full) continue;
        this.write(source.resource, id, object, { [this.config.names.assignLabel]: member });
      }
    });
    return ready;
  }

  /** Owned objects whose label differs from their assigned owner's are given the owner's. */
  private followOwners(live: Set<string>): void {
    const { assignLabel } = this.config.names;
    this.config.owned.forEach((source, i) => {
      for (const object of this.owned[i]!.values()) {
        if (this.full) return;
        const owner = ownerOf(object, this.primaryApiVersion, this.objects!);
        if (owner === undefined || this.followed.get(object) === owner) continue;
        const target = ownedTarget(owner, assignLabel, (member) => live.has(member));
        const id = `${resourceIdentity(source.resource)} ${defaultKey(object)}`;
        if (this.writing.has(id)) continue;
        if (target === undefined || object.metadata?.labels?.[assignLabel] === target) {
          this.followed.set(object, owner);
        } else {
          this.write(source.resource, id, object, { [assignLabel]: target });
        }
      }
    });
  }

  private write(
    resource: ResourceRef<any>,
    id: string,
    object: KubernetesObject,
    labels: LabelPatch,
  ): void {
    const { cluster, logger } = this.config;
    const retryPeriodMs = this.config.settings.retryPeriodMs;
    const metadata = object.metadata!;
    this.writing.add(id);
    const abort = new AbortController();
    this.aborts.add(abort);
    const patch = { metadata: { resourceVersion: metadata.resourceVersion, labels } };
    resourceApi(cluster, resource)
      .patch(metadata.name!, patch, {
        namespace: metadata.namespace,
        type: 'merge',
        signal: abort.signal,
      })
      .then(
        () => {
          this.writing.delete(id);
          this.aborts.delete(abort);
          this.soon();
        },
        (error: unknown) => {
          this.writing.delete(id);
          this.aborts.delete(abort);
          if (this.closed) return;
          logger?.debug?.(`sharder: ${id}: ${(error as Error).message}`);
          // A conflict or a gone object: the next event passes again; a fault: retry later.
          this.soon(retryPeriodMs);
        },
      );
  }
}
