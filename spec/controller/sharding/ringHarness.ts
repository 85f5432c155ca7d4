// A ring of sharded controllers in one process against one FakeKubeApiServer on loopback, with
// an audit of every run's start and end across the members.
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { Action } from '../../../src/controller/Action.js';
import { controller } from '../../../src/controller/controller.js';
import type { ReconcileReport } from '../../../src/controller/ReconcileReport.js';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import { microTime } from '../../../src/objects/microTime.js';
import { configmaps } from '../../../src/objects/resources.js';
import type { Informers } from '../../../src/operators/createInformers.js';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { leases as memberLeases } from '../../../src/controller/sharding/memberLease.js';
import {
  MEMBER_LABEL,
  RING_LABEL,
  shardNames,
} from '../../../src/controller/sharding/shardNames.js';
import type { ClusterConnection, KubernetesObject, ResourceRef } from '../../../src/types.js';
import { sleep } from '../../support/wait.js';

export const RING = 'cms';
const leases = memberLeases as ResourceRef<LeaseObject & KubernetesObject>;
export const LABEL = `shard.kube-rx.io/${RING}`;
export const DRAIN = `drain.shard.kube-rx.io/${RING}`;
/** Short leases: the Lease holds whole seconds, so a 600 ms lease is judged as 1 s. */
export const LEASE = 600;
export const RENEW = 400;
export const RETRY = 100;

/** One run of a member: when it started and ended (performance.now()). */
export interface RunRecord {
  member: string;
  key: string;
  start: number;
  end: number;
  label: string | undefined;
  /** The label the server held for the key as the run started (what the member may act on). */
  serverLabel: string | undefined;
  /** The resourceVersion of the object the run was given. */
  version: string | undefined;
}

/** A member: its subscription and a switch that makes every request of it fail. */
export interface Member {
  identity: string;
  subscription: Subscription;
  partition(on: boolean): void;
}

export class Ring {
  readonly runs: RunRecord[] = [];
  /** Every report of every member's queue (releases and skips too), for failure messages. */
  readonly reports: { member: string; at: number; report: ReconcileReport }[] = [];
  readonly members = new Map<string, Member>();
  constructor(
    readonly fake: FakeKubeApiServer,
    readonly runMs = 20,
    /** Each run asks to run again this soon: keys keep running while they move. */
    readonly requeueMs = 50,
    /** The members' Lease timings (longer ones for specs whose requests are slow by design). */
    readonly timing = { lease: LEASE, renew: RENEW, retry: RETRY },
  ) {}

  /**
   * Starts a member; its reconcile takes `runMs` and ignores its signal (the worst case).
   * `via`: the address its requests go to instead of the server's (a proxy in front of it);
   * `informers`: shared watches of its own (`config.informers`, e.g. with a linger).
   */
  join(identity: string, name = identity, via?: string, informers?: Informers): Member {
    const base = kubeConfigConnection(this.fake.kubeConfig());
    let partitioned = false;
    // A partition: every request resolves to a port nothing listens on (connection refused).
    const cluster: ClusterConnection = {
      name: identity,
      resolve: async (context) =>
        partitioned
          ? { server: 'http://127.0.0.1:9' }
          : { ...(await base.resolve(context)), ...(via !== undefined && { server: via }) },
    };
    const subscription = controller<V1ConfigMap>({
      cluster,
      for: { resource: configmaps, options: { namespace: 'app' } },
      rateLimit: false,
      concurrency: 16,
      ...(informers && { informers }),
      reconcile: async (object, { key }) => {
        const [namespace, objectName] = key.split('/') as [string, string];
        const record: RunRecord = {
          member: name,
          key,
          start: performance.now(),
          end: Infinity,
          label: object?.metadata?.labels?.[LABEL],
          serverLabel: this.fake.get(configmaps, namespace, objectName)?.metadata?.labels?.[LABEL],
          version: object?.metadata?.resourceVersion,
        };
        this.runs.push(record);
        await sleep(this.runMs);
        record.end = performance.now();
        return Action.requeueAfter(this.requeueMs);
      },
      sharding: {
        ring: RING,
        namespace: 'ops',
        identity,
        leaseDurationMs: this.timing.lease,
        renewDeadlineMs: this.timing.renew,
        retryPeriodMs: this.timing.retry,
      },
    }).subscribe((report) => this.reports.push({ member: name, at: performance.now(), report }));
    const member = { identity: name, subscription, partition: (on: boolean) => (partitioned = on) };
    this.members.set(name, member);
    return member;
  }

  leave(name: string): void {
    this.members.get(name)?.subscription.unsubscribe();
    this.members.delete(name);
  }

  close(): void {
    for (const identity of [...this.members.keys()]) this.leave(identity);
  }

  /** The assignment label of every object (name to member, or undefined). */
  labels(): Map<string, string | undefined> {
    const out = new Map<string, string | undefined>();
    for (const cm of this.fake.objects(configmaps, 'app')) {
      out.set(cm.metadata!.name!, cm.metadata?.labels?.[LABEL]);
    }
    return out;
  }

  /** Pairs of runs of one key on two members that overlap in time. */
  overlaps(): Array<[RunRecord, RunRecord]> {
    const byKey = new Map<string, RunRecord[]>();
    for (const run of this.runs) {
      const list = byKey.get(run.key) ?? [];
      list.push(run);
      byKey.set(run.key, list);
    }
    const out: Array<[RunRecord, RunRecord]> = [];
    for (const list of byKey.values()) {
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          const a = list[i]!;
          const b = list[j]!;
          if (a.member !== b.member && a.start < b.end && b.start < a.end) out.push([a, b]);
        }
      }
    }
    return out;
  }
}

/** Creates `n` ConfigMaps `cm-0..n-1` in namespace app. */
export function seed(fake: FakeKubeApiServer, n: number, from = 0): void {
  for (let i = from; i < from + n; i++) {
    fake.create(configmaps, {
      metadata: { name: `cm-${i}`, namespace: 'app' },
      data: { i: `${i}` },
    });
  }
}

/** Labels every ConfigMap in namespace app for `member` (objects a member had before). */
export function labelAll(fake: FakeKubeApiServer, member: string): void {
  for (const object of fake.objects(configmaps, 'app')) {
    fake.update(configmaps, {
      ...object,
      metadata: { ...object.metadata, labels: { [LABEL]: member } },
    });
  }
}

/**
 * Creates `member`'s Lease in namespace ops, last renewed now by `holder` for 1 s: what a
 * member (`<member>/<incarnation>`) or a sharder's claim (`reaper:...`) that died left.
 */
export function staleLease(fake: FakeKubeApiServer, member: string, holder: string): void {
  const now = microTime(Date.now());
  fake.create(leases, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: shardNames({ ring: RING, namespace: 'ops', identity: member }).memberLease(member),
      namespace: 'ops',
      labels: { [RING_LABEL]: RING, [MEMBER_LABEL]: member },
    },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    },
  } as LeaseObject & KubernetesObject);
}
