import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { resourceApi } from '../../client/write/resourceApi.js';
import { defaultKey } from '../../objects/defaultKey.js';
import type { Informers } from '../../operators/createInformers.js';
import type { Store } from '../../operators/store/Store.js';
import { metadataOnly } from '../../shapes/metadataOnly.js';
import type { Cluster, KubernetesObject, Logger, ResourceRef, WatchOptions } from '../../types.js';
import type { ElectionSettings } from '../election/electionSettings.js';
import type { LeaseObject } from '../election/leaseApi.js';
import { sharderStep, type LabelPatch } from './handshake.js';
import { HashRing } from './hashRing.js';
import { heldByMember, memberOf } from './memberLease.js';
import { Reapers } from './Reapers.js';
import { RING_LABEL, isMemberIdentity, type ShardNames } from './shardNames.js';

/** Assignment writes in flight at once. */
const MAX_WRITES = 16;

/** What the sharder needs: the ring, the primary resource and where its Leases live. */
export interface SharderConfig {
  cluster: Cluster;
  informers: Informers;
  names: ShardNames;
  namespace: string;
  /** The primary resource and its watch options (namespace, the user's selectors). */
  resource: ResourceRef<any>;
  options: WatchOptions;
  /** The Elector settings of the sharder's claims on members' Leases (its holder identity). */
  settings: ElectionSettings;
  scheduler: SchedulerLike;
  logger?: Logger | undefined;
}

const leases: ResourceRef<LeaseObject> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
};

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

  constructor(private readonly config: SharderConfig) {
    const { cluster, informers, names, namespace, resource, options, settings, logger } = config;
    this.reapers = new Reapers(cluster, namespace, names, settings, () => this.soon(), logger);
    const selector = `${RING_LABEL}=${names.ring}`;
    this.subscriptions.push(
      informers.store(cluster, leases, { namespace, labelSelector: selector }).subscribe({
        next: (store) => ((this.members = store), this.soon()),
      }),
      informers.store(cluster, metadataOnly(resource), options).subscribe({
        next: (store) => ((this.objects = store), this.soon()),
      }),
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

  private pass(): void {
    if (this.closed || !this.objects || !this.members) return;
    const { assignLabel, drainLabel } = this.config.names;
    const live = this.live();
    const liveSet = new Set(live);
    const key = live.join(',');
    if (key !== this.ringKey) {
      this.ringKey = key;
      this.ring = new HashRing(live);
    }
    const referenced = new Set<string>();
    for (const object of this.objects.values()) {
      const labels = object.metadata?.labels ?? {};
      const current = labels[assignLabel];
      if (current && isMemberIdentity(current) && !liveSet.has(current)) referenced.add(current);
      const id = defaultKey(object);
      if (this.writing.has(id) || this.writing.size >= MAX_WRITES) continue;
      const desired = this.ring.owner(id);
      if (desired === undefined) continue;
      if (current && isMemberIdentity(current) && !liveSet.has(current)) {
        // Stand by on (or claim) that member's Lease: its objects move once we hold it.
        this.reapers.watch(current);
      }
      const patch = sharderStep(labels, {
        assignLabel,
        drainLabel,
        desired,
        live: (member) => liveSet.has(member),
        claimed: (member) => this.reapers.holds(member),
      });
      if (patch) this.write(object, patch);
    }
    // A claim that holds a member's Lease and has nothing left to move is released (the member
    // may join again at once); one on a Lease gone and unreferenced is dropped.
    for (const member of [...this.reapers.members()]) {
      if (referenced.has(member) || this.writing.size > 0) continue;
      const lease = this.members.get(
        `${this.config.namespace}/${this.config.names.memberLease(member)}`,
      );
      if (this.reapers.holds(member) || lease === undefined || !heldByMember(lease)) {
        this.reapers.forget(member);
      }
    }
  }

  private write(object: KubernetesObject, labels: LabelPatch): void {
    const { cluster, resource, retryPeriodMs, logger } = {
      ...this.config,
      retryPeriodMs: this.config.settings.retryPeriodMs,
    };
    const id = defaultKey(object);
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
