// The phases of one rebalance, as seen from outside the members (for bench/sharding.bench.ts):
// one metadata-only watch of the objects and one watch of the ring's Leases, each event stamped
// on arrival. The phases' times relative to each other hold on a loaded machine, where the
// totals do not.
import type { ResourceRef } from '../src/index.js';

/** What the timeline reads of a Lease. */
export interface LeaseObject {
  metadata: { name?: string; labels?: Record<string, string> };
  spec?: { holderIdentity?: string };
}

/** The Lease resource (coordination.k8s.io/v1): the members' and the sharder's. */
export const leases: ResourceRef<LeaseObject> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
};

/** First and last time (ms after the mark) a phase was seen, and how many times. */
interface Phase {
  first: number;
  last: number;
  count: number;
}

/**
 * Records, from a mark (a member joining or stopping) on: the member's Lease written (created,
 * renewed, released, claimed), the drain marks, the old members' releases (both labels cleared),
 * the assignments to their new members, and the new members' first runs of their keys.
 */
export class RebalanceTimeline {
  private at = NaN;
  private readonly phases = new Map<string, Phase>();
  /** Per object, when its drain mark and its release were seen: each step's lag. */
  private readonly drained = new Map<string, number>();
  private readonly released = new Map<string, number>();
  private readonly lags = { release: [] as number[], assign: [] as number[] };

  constructor(
    private readonly assignLabel: string,
    private readonly drainLabel: string,
  ) {}

  /** Starts a timeline now (what was recorded before is dropped). */
  mark(): void {
    this.at = performance.now();
    this.phases.clear();
    this.drained.clear();
    this.released.clear();
    this.lags.release = [];
    this.lags.assign = [];
  }

  /** Something seen now (a phase of its own). */
  note(phase: string): void {
    if (Number.isNaN(this.at)) return;
    const t = performance.now() - this.at;
    const seen = this.phases.get(phase);
    if (seen) {
      seen.last = t;
      seen.count++;
    } else this.phases.set(phase, { first: t, last: t, count: 1 });
  }

  /** Object `name`'s labels changed from `before` to `after` (a watch event). */
  object(
    name: string,
    before: Record<string, string> | undefined,
    after: Record<string, string> | undefined,
  ) {
    const was = before?.[this.assignLabel];
    const now = after?.[this.assignLabel];
    const t = performance.now();
    if (after?.[this.drainLabel] !== undefined && before?.[this.drainLabel] === undefined) {
      this.note(`drain ${was}`);
      this.drained.set(name, t);
    }
    if (was !== undefined && now === undefined) {
      this.note(`release ${was}`);
      const drained = this.drained.get(name);
      if (drained !== undefined) this.lags.release.push(t - drained);
      this.released.set(name, t);
    }
    if (now !== undefined && now !== was) {
      this.note(`assign ${now}${was ? ` (from ${was})` : ''}`);
      const released = this.released.get(name);
      if (released !== undefined) this.lags.assign.push(t - released);
    }
  }

  /** A Lease of the ring was written (a watch event). */
  lease(lease: LeaseObject): void {
    const member = lease.metadata.labels?.['shard.kube-rx.io/member'];
    const holder = lease.spec?.holderIdentity ?? '';
    const by = holder === '' ? 'free' : holder.startsWith('reaper:') ? 'claimed' : 'held';
    this.note(`lease ${member ?? lease.metadata.name} ${by}`);
  }

  /** `member` ran a key it never ran before (in this round). */
  firstRun(member: string): void {
    this.note(`first run on ${member}`);
  }

  /** The phases by first time: `name first..last ms (count)`, then each step's lag. */
  toString(): string {
    const lag = (name: string, values: number[]) => {
      if (values.length === 0) return [];
      const sorted = [...values].sort((a, b) => a - b);
      const at = (q: number) => Math.round(sorted[Math.floor(q * (sorted.length - 1))]!);
      return [`    ${name}: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`];
    };
    const phases = [...this.phases]
      .sort(([, a], [, b]) => a.first - b.first)
      .map(
        ([name, p]) => `    ${name}: ${Math.round(p.first)}..${Math.round(p.last)} ms (${p.count})`,
      );
    return [
      ...phases,
      ...lag('drain mark to release', this.lags.release),
      ...lag('release to assignment', this.lags.assign),
    ].join('\n');
  }
}
