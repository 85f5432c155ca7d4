import { afterEach, describe, expect, it } from '@jest/globals';
import type { Subscription } from 'rxjs';
import { leaderElection } from '../../src/controller/leaderElection.js';
import type { LeaderElectionConfig } from '../../src/controller/LeaderElectionConfig.js';
import { kubeConfigConnection } from '../../src/client/connection/kubeConfigConnection.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { ClusterConnection, KubernetesObject, ResourceRef } from '../../src/types.js';
import { WatchError } from '../../src/WatchError.js';
import { sleep, until } from '../support/wait.js';

// Real time against a real server, with short durations. The Lease holds whole seconds, so the
// lease duration is 2 s: a standby waits exactly that. Bounds are loose (a loaded 2-core
// machine), but each is far from what a broken election gives (never, or at once).
const LEASE = 2000;
const RENEW = 1400;
const RETRY = 200;
const SLACK = 1500;

interface Lease extends KubernetesObject {
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}
const leases: ResourceRef<Lease> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
};
const namespace = 'ops';
const name = 'lock';
const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`;

let server: FakeKubeApiServer | undefined;
const subscriptions: Subscription[] = [];
afterEach(async () => {
  for (const s of subscriptions.splice(0)) s.unsubscribe();
  await sleep(50); // let releases land before the server stops
  await server?.stop();
  server = undefined;
});

/** One candidate: every value it emitted, with when (performance.now()). */
class Candidate {
  /** What it emitted, when, and who held the lease on the server at that moment. */
  readonly values: { leading: boolean; at: number; holder: string | undefined }[] = [];
  readonly subscription: Subscription;
  constructor(
    readonly identity: string,
    cluster: ClusterConnection,
    config: Partial<LeaderElectionConfig> = {},
  ) {
    const election$ = leaderElection(cluster, {
      namespace,
      name,
      identity,
      leaseDurationMs: LEASE,
      renewDeadlineMs: RENEW,
      retryPeriodMs: RETRY,
      ...config,
    });
    this.subscription = election$.subscribe((leading) =>
      this.values.push({ leading, at: performance.now(), holder: holder() }),
    );
    subscriptions.push(this.subscription);
  }
  get leading(): boolean {
    return this.values.at(-1)?.leading ?? false;
  }
  /** When it last became `value` (undefined if it never did). */
  lastTime(value: boolean): number | undefined {
    return this.values.filter((v) => v.leading === value).at(-1)?.at;
  }
}

const holder = (): string | undefined => server!.get(leases, namespace, name)?.spec?.holderIdentity;

async function start(): Promise<ClusterConnection> {
  server = await FakeKubeApiServer.start({ http2: false });
  return kubeConfigConnection(server.kubeConfig());
}

/** A connection that can be cut off from the server (a network partition of one replica). */
function partitionable(cluster: ClusterConnection): ClusterConnection & { cut: boolean } {
  const link = {
    cut: false,
    resolve: async () => {
      const resolved = await cluster.resolve();
      // Port 9 on loopback: nothing listens, every request fails to connect.
      return link.cut ? { ...resolved, server: 'http://127.0.0.1:9' } : resolved;
    },
  };
  return link;
}

describe('leaderElection', () => {
  it('refuses invalid config with a clear error, before any request', async () => {
    const cluster = await start();
    const base = { namespace, name, identity: 'a' };
    expect(() => leaderElection(cluster, { ...base, renewDeadlineMs: 15_000 })).toThrow(
      /renewDeadlineMs \(15000\) must be less than leaseDurationMs \(15000\)/,
    );
    expect(() =>
      leaderElection(cluster, { ...base, retryPeriodMs: 5000, renewDeadlineMs: 4000 }),
    ).toThrow(/retryPeriodMs \(5000\) must be less than renewDeadlineMs \(4000\)/);
    expect(() => leaderElection(cluster, { ...base, leaseDurationMs: -1 })).toThrow(RangeError);
    expect(() => leaderElection(cluster, { ...base, identity: '' })).toThrow(/identity/);
    expect(() => leaderElection(cluster, { ...base, namespace: 'Bad_NS' })).toThrow(WatchError);
    expect(() => leaderElection(cluster, { ...base, name: '../pods' })).toThrow(
      /invalid name "\.\.\/pods"/,
    );
    expect(server!.requests).toHaveLength(0);
  });

  it('one of three candidates leads and holds the lease; stopping it hands over at once', async () => {
    const cluster = await start();
    const candidates = ['a', 'b', 'c'].map((id) => new Candidate(id, cluster));
    await until(() => candidates.some((c) => c.leading), 'a leader', 5000);
    // Stable: renewals keep the leader leading and the others waiting.
    await sleep(LEASE + 2 * RETRY);
    const leaders = candidates.filter((c) => c.leading);
    expect(leaders).toHaveLength(1);
    const [leader] = leaders;
    expect(holder()).toBe(leader.identity);
    expect(leader.values.map((v) => v.leading)).toEqual([false, true]);
    for (const c of candidates)
      if (c !== leader) expect(c.values).toEqual([expect.objectContaining({ leading: false })]);

    // Unsubscribing releases the lease: a standby takes it at its next try, not after expiry.
    const stopped = performance.now();
    leader.subscription.unsubscribe();
    const rest = candidates.filter((c) => c !== leader);
    await until(() => rest.some((c) => c.leading), 'a new leader', LEASE + RETRY + SLACK);
    const next = rest.find((c) => c.leading)!;
    expect(next.lastTime(true)! - stopped).toBeLessThan(LEASE);
    expect(holder()).toBe(next.identity);
    expect(rest.filter((c) => c.leading)).toHaveLength(1);
  });

  it('a standby takes a lease nobody renews only after it expired by its own observation', async () => {
    const cluster = await start();
    // The holder's timestamps are from long ago: only what this process saw counts.
    server!.create(leases, {
      metadata: { name, namespace },
      spec: {
        holderIdentity: 'ghost',
        renewTime: '2000-01-01T00:00:00.000000Z',
        leaseDurationSeconds: 2,
      },
    });
    const started = performance.now();
    const b = new Candidate('b', cluster);
    await until(() => b.leading, 'b leading', LEASE + RETRY + SLACK);
    expect(b.lastTime(true)! - started).toBeGreaterThanOrEqual(LEASE);
    expect(holder()).toBe('b');
  });

  it('a standby never takes a lease whose holder keeps renewing it', async () => {
    const cluster = await start();
    const created = server!.create(leases, {
      metadata: { name, namespace },
      spec: { holderIdentity: 'other', leaseDurationSeconds: 2 },
    });
    let current = created;
    const renew = setInterval(() => {
      current = server!.update(leases, {
        ...current,
        spec: { ...current.spec, renewTime: new Date().toISOString() },
      });
    }, LEASE / 2);
    try {
      const b = new Candidate('b', cluster);
      await sleep(2 * LEASE + RETRY);
      expect(b.values.map((v) => v.leading)).toEqual([false]);
      expect(holder()).toBe('other');
    } finally {
      clearInterval(renew);
    }
  });

  it('a leader whose renewals get 500 emits false no later than the renew deadline', async () => {
    const cluster = await start();
    const a = new Candidate('a', cluster);
    await until(() => a.leading, 'a leading', 5000);
    const faulted = performance.now();
    server!.faults.fail(500, { times: 10_000, path: leasePath });
    await until(() => !a.leading, 'a stops leading', RENEW + SLACK);
    // Its last successful renewal started before the fault: the deadline counts from there.
    expect(a.lastTime(false)! - faulted).toBeLessThanOrEqual(RENEW + SLACK);
    expect(a.lastTime(false)! - faulted).toBeGreaterThan(RENEW - 2 * RETRY - 100);
    server!.faults.reset();
    // Once the server answers again, the lease is still ours: it leads again.
    await until(() => a.leading, 'a leading again', 5000);
  });

  it('a leader whose requests hang emits false at the renew deadline', async () => {
    const cluster = await start();
    const a = new Candidate('a', cluster);
    await until(() => a.leading, 'a leading', 5000);
    const faulted = performance.now();
    server!.faults.delayHeaders(60_000, { times: 10_000 });
    await until(() => !a.leading, 'a stops leading', RENEW + SLACK);
    expect(a.lastTime(false)! - faulted).toBeLessThanOrEqual(RENEW + SLACK);
    server!.faults.reset();
  });

  it('a leader that sees another holder in the lease emits false at once', async () => {
    const cluster = await start();
    const a = new Candidate('a', cluster);
    await until(() => a.leading, 'a leading', 5000);
    const lease = server!.get(leases, namespace, name)!;
    const changed = performance.now();
    server!.update(leases, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await until(() => !a.leading, 'a stops leading', RENEW + SLACK);
    expect(a.lastTime(false)! - changed).toBeLessThan(RENEW);
    // Never overwritten: the intruder keeps it (a waits for it to expire, and nobody renews it).
    expect(holder()).toBe('intruder');
  });

  it('after a partition heals, the old leader does not act until it has re-acquired the lease', async () => {
    const base = await start();
    const link = partitionable(base);
    const a = new Candidate('a', link);
    await until(() => a.leading, 'a leading', 5000);
    const b = new Candidate('b', base);
    await sleep(RETRY * 2);
    expect(b.leading).toBe(false);

    link.cut = true;
    const cut = performance.now();
    await until(() => !a.leading, 'a stops leading', RENEW + SLACK);
    expect(a.lastTime(false)! - cut).toBeLessThanOrEqual(RENEW + SLACK);
    await until(() => b.leading, 'b takes over', LEASE + RETRY + SLACK);
    // Never two leaders: a had stopped before b started, by the margin of the two durations.
    expect(b.lastTime(true)!).toBeGreaterThan(a.lastTime(false)!);

    link.cut = false;
    await sleep(LEASE + 2 * RETRY);
    expect(a.leading).toBe(false);
    expect(holder()).toBe('b');

    // b stops: a leads again, and only once the server holds its write.
    const before = a.values.length;
    b.subscription.unsubscribe();
    await until(() => a.leading, 'a leads again', LEASE + RETRY + SLACK);
    expect(a.values.slice(before).map((v) => [v.leading, v.holder])).toEqual([[true, 'a']]);
  });

  it('one call shares one candidate among its subscribers and replays whether it leads', async () => {
    const cluster = await start();
    const election$ = leaderElection(cluster, {
      namespace,
      name,
      identity: 'a',
      leaseDurationMs: LEASE,
      renewDeadlineMs: RENEW,
      retryPeriodMs: RETRY,
    });
    const first: boolean[] = [];
    const late: boolean[] = [];
    subscriptions.push(election$.subscribe((v) => first.push(v)));
    await until(() => first.at(-1) === true, 'leading', 5000);
    const creates = server!.requests.filter((r) => r.method === 'POST').length;
    subscriptions.push(election$.subscribe((v) => late.push(v)));
    expect(late).toEqual([true]);
    await sleep(3 * RETRY);
    expect(server!.requests.filter((r) => r.method === 'POST').length).toBe(creates);
    for (const s of subscriptions.splice(0)) s.unsubscribe();
    await until(() => holder() === '', 'released', 5000);
  });
});
