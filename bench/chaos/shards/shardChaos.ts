import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { configmaps } from '../../../src/index.js';
import type { KubernetesObject, ResourceRef } from '../../../src/index.js';
import { FakeKubeApiServer } from '../../../src/testing/index.js';
import { Prng } from '../prng.js';
import { waitUntil } from '../sockets.js';

// Sharded members (child processes) of one ring against one server under a workload of
// changes, creations and deletions; members join (3 -> 5), then leave: two are SIGKILLed and
// one stopped (-> 2). From the runs each member reports (start and end, Date.now(): one machine,
// one clock) it checks that no key ever ran on two members at once, that every live object was
// reconciled at its last version, that nothing is left unassigned or draining, and how long
// each rebalance took.

export interface ShardChaosOptions {
  seed: number;
  /** Objects at the start. */
  objects?: number;
  /** How long each phase (3, 5, 2 members) lasts once rebalanced, in ms. */
  phaseMs?: number;
  leaseMs?: number;
  renewMs?: number;
  retryMs?: number;
  /** The share of runs that fail (and are retried). */
  failRate?: number;
  log?: (line: string) => void;
}

export interface ShardChaosReport {
  runs: number;
  changes: number;
  /** Rebalance after 3 -> 5 (join) and after 5 -> 2 (two kills and a stop), in ms. */
  joinRebalanceMs: number | undefined;
  leaveRebalanceMs: number | undefined;
  overlaps: string[];
  failures: string[];
  /** When the ring changed (ms from the start), for reading `overlaps`. */
  marks: string[];
}

interface Line {
  at: number;
  identity: string;
  type: string;
  key?: string;
  rv?: string | null;
}

const root = fileURLToPath(new URL('../../..', import.meta.url));
const LABEL = 'shard.kube-rx.io/chaos';
/** The ring's Leases, read for --verbose (who holds each: incarnations, sharder, claims). */
const leases: ResourceRef<KubernetesObject & { spec?: { holderIdentity?: string } }> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
};
const DRAIN = 'drain.shard.kube-rx.io/chaos';

class Member {
  readonly lines: Line[] = [];
  killedAt: number | undefined;
  private readonly child: ChildProcess;
  readonly exited: Promise<void>;

  constructor(
    readonly identity: string,
    args: string[],
  ) {
    this.child = spawn(
      process.execPath,
      ['--import', './bench/register.mjs', 'bench/chaos/shards/member.ts', ...args],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buffer = '';
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const part of parts) if (part.trim() !== '') this.lines.push(JSON.parse(part) as Line);
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  get ready(): boolean {
    return this.lines.some((l) => l.type === 'ready' || l.type === 'started');
  }

  /** A member started with `wait` joins the ring now. */
  join(): void {
    this.child.kill('SIGUSR2');
  }

  get started(): boolean {
    return this.lines.some((l) => l.type === 'started');
  }

  kill(signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL') this.killedAt = Date.now();
    this.child.kill(signal);
  }

  /** Each run: key, start, end (a run cut by SIGKILL ends at the kill), the version it read. */
  runs(end: number): Array<{ key: string; s: number; e: number; rv: string | null }> {
    const open = new Map<string, { key: string; s: number; e: number; rv: string | null }>();
    const out: Array<{ key: string; s: number; e: number; rv: string | null }> = [];
    for (const line of this.lines) {
      if (line.type === 'start')
        open.set(line.key!, { key: line.key!, s: line.at, e: end, rv: line.rv ?? null });
      else if (line.type === 'end') {
        const run = open.get(line.key!);
        if (run) out.push({ ...run, e: line.at });
        open.delete(line.key!);
      }
    }
    for (const run of open.values()) out.push({ ...run, e: this.killedAt ?? end });
    return out;
  }
}

/**
 * Runs the sharding chaos and reports; `failures` is empty when no key ran on two members at
 * once, every live object was reconciled at its last version, every object ended assigned to a
 * live member and none draining.
 *
 * @example
 * const report = await runShardChaos({ seed: 1 });
 */
export async function runShardChaos(options: ShardChaosOptions): Promise<ShardChaosReport> {
  const {
    seed,
    objects = 60,
    phaseMs = 3000,
    leaseMs = 1000,
    renewMs = 700,
    retryMs = 100,
  } = options;
  const failRate = options.failRate ?? 0.1;
  const given = options.log ?? (() => undefined);
  const log = (line: string) => given(`${Date.now() - began} ${line}`);
  const prng = new Prng(seed);
  const began = Date.now();
  const server = await FakeKubeApiServer.start({ http2: false });
  const dir = await mkdtemp(join(tmpdir(), 'kube-rx-shard-chaos-'));
  const kubeconfig = await server.writeKubeConfig(join(dir, 'kubeconfig'));
  const members: Member[] = [];
  const failures: string[] = [];
  /** What happened when (ms from the start): joins, kills, stops. */
  const marks: string[] = [];
  const mark = (what: string) => marks.push(`${what} at ${Date.now() - began}`);
  let next = 0;
  const create = () =>
    server.create(configmaps, {
      metadata: { name: `cm-${next++}`, namespace: 'app' },
      data: { v: '0' },
    });
  for (let i = 0; i < objects; i++) create();

  const start = (identity: string, wait = false): Member => {
    const args = [
      '--kubeconfig',
      kubeconfig,
      '--identity',
      identity,
      '--seed',
      String(prng.int(2 ** 31)),
    ];
    args.push('--lease', String(leaseMs), '--renew', String(renewMs), '--retry', String(retryMs));
    args.push('--fail', String(failRate));
    if (wait) args.push('--wait');
    const member = new Member(identity, args);
    members.push(member);
    log(`start ${identity}`);
    return member;
  };
  const live = () =>
    members.filter((m) => m.killedAt === undefined && !m.lines.some((l) => l.type === 'stopping'));
  /** How the objects stand: per member, draining, unassigned (for --verbose). */
  const census = () => {
    const counts: Record<string, number> = {};
    for (const cm of server.objects(configmaps, 'app')) {
      const labels = cm.metadata?.labels ?? {};
      const state = labels[DRAIN] !== undefined ? 'draining' : (labels[LABEL] ?? 'unassigned');
      counts[state] = (counts[state] ?? 0) + 1;
    }
    return JSON.stringify(counts);
  };
  // Who holds each Lease of the ring, logged as it changes: incarnations, sharder, claims.
  let holders = '';
  const leaseTimer = setInterval(() => {
    const now = server
      .objects(leases, 'chaos')
      .map((l) => `${l.metadata!.name}=${l.spec?.holderIdentity ?? ''}`)
      .sort()
      .join(' ');
    if (now !== holders) log(`leases ${(holders = now)}`);
  }, 50);
  const censusTimer = setInterval(() => log(`objects ${census()}`), 1000);
  /** Every object assigned to one of `ids`, none draining, each of `ids` holding some. */
  const balanced = (ids: string[]) => {
    const held = new Set<string>();
    for (const cm of server.objects(configmaps, 'app')) {
      const labels = cm.metadata?.labels ?? {};
      if (labels[DRAIN] !== undefined || !ids.includes(labels[LABEL] ?? '')) return false;
      held.add(labels[LABEL]!);
    }
    return held.size === ids.length;
  };

  // The workload: a change every 20 ms (mostly updates, some creations and deletions).
  let changes = 0;
  let working = true;
  const workload = (async () => {
    while (working) {
      await sleep(20);
      const all = server.objects(configmaps, 'app');
      const roll = prng.next();
      if (roll < 0.1 || all.length < objects / 2) create();
      else if (roll < 0.2) {
        const victim = all[prng.int(all.length)]!;
        server.delete(configmaps, 'app', victim.metadata!.name!);
      } else {
        const target = all[prng.int(all.length)]!;
        // An annotation: what a controller's default triggerOn compares (data alone would not
        // run it again, by design).
        const metadata = { ...target.metadata, annotations: { v: String(changes) } };
        server.update(configmaps, { ...target, metadata });
      }
      changes++;
    }
  })();

  let joinRebalanceMs: number | undefined;
  let leaveRebalanceMs: number | undefined;
  try {
    for (const id of ['m1', 'm2', 'm3']) start(id);
    // m4 and m5 load now too (seconds of transpiling each) and join later, on a signal.
    const later = [start('m4', true), start('m5', true)];
    if (!(await waitUntil(() => members.every((m) => m.ready), 180_000))) {
      throw new Error('the members did not start within 180 s');
    }
    if (!(await waitUntil(() => balanced(['m1', 'm2', 'm3']), 30_000))) {
      failures.push('3 members: not every object assigned within 30 s');
    }
    await sleep(phaseMs);
    for (const member of later) member.join();
    mark('m4, m5 joined');
    await waitUntil(() => members.every((m) => m.started), 10_000);
    const joined = Date.now();
    if (await waitUntil(() => balanced(['m1', 'm2', 'm3', 'm4', 'm5']), 30_000)) {
      joinRebalanceMs = Date.now() - joined;
    } else failures.push('5 members: not every object assigned within 30 s');
    await sleep(phaseMs);
    const [m1, m2, m3] = members;
    const left = Date.now();
    m1!.kill('SIGKILL');
    m2!.kill('SIGKILL');
    m3!.kill('SIGTERM');
    log('killed m1 and m2, stopped m3');
    mark('m1, m2 killed, m3 stopped');
    if (await waitUntil(() => balanced(['m4', 'm5']), 30_000)) {
      leaveRebalanceMs = Date.now() - left;
    } else failures.push('2 members: not every object assigned within 30 s');
    await sleep(phaseMs);
    working = false;
    await workload;
    // Quiet: every live object reconciled at its last version, by the member it is assigned to.
    const reconciledAtLast = () =>
      server
        .objects(configmaps, 'app')
        .every((cm) =>
          live().some((m) =>
            m.lines.some(
              (l) =>
                l.type === 'start' &&
                l.key === `app/${cm.metadata!.name}` &&
                l.rv === cm.metadata!.resourceVersion,
            ),
          ),
        );
    if (!(await waitUntil(() => balanced(['m4', 'm5']) && reconciledAtLast(), 20_000))) {
      failures.push('not every live object was reconciled at its last version');
    }
  } finally {
    clearInterval(censusTimer);
    clearInterval(leaseTimer);
    working = false;
    await workload;
    for (const member of live()) member.kill('SIGTERM');
    await Promise.race([Promise.all(members.map((m) => m.exited)), sleep(renewMs + 5000)]);
    for (const member of members) if (member.killedAt === undefined) member.kill('SIGKILL');
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }

  // The audit: every pair of runs of one key on two members that overlap in time.
  const ended = Date.now();
  const byKey = new Map<string, Array<{ who: string; s: number; e: number }>>();
  let runs = 0;
  for (const member of members) {
    for (const run of member.runs(ended)) {
      runs++;
      const list = byKey.get(run.key) ?? [];
      list.push({ who: member.identity, s: run.s, e: run.e });
      byKey.set(run.key, list);
    }
  }
  const overlaps: string[] = [];
  for (const [key, list] of byKey) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = [list[i]!, list[j]!];
        if (a.who !== b.who && a.s < b.e && b.s < a.e) {
          // When, from the start (ms), with the phases' marks: enough to find the cause.
          const at = (run: { s: number; e: number }) => `${run.s - began}..${run.e - began}`;
          overlaps.push(
            `${key} on ${a.who} (${at(a)}) and ${b.who} (${at(b)}) for ${Math.min(a.e, b.e) - Math.max(a.s, b.s)} ms`,
          );
        }
      }
    }
  }
  if (overlaps.length > 0) failures.push(`${overlaps.length} runs overlapped on two members`);
  return { runs, changes, joinRebalanceMs, leaveRebalanceMs, overlaps, failures, marks };
}

/** The report as lines for a terminal. */
export function formatShardReport(report: ShardChaosReport): string[] {
  return [
    `runs           ${report.runs} over ${report.changes} changes`,
    `rebalance      3 -> 5: ${report.joinRebalanceMs ?? '-'} ms; 5 -> 2 (2 killed, 1 stopped): ${report.leaveRebalanceMs ?? '-'} ms`,
    `two at once    ${report.overlaps.length === 0 ? 'never' : report.overlaps.slice(0, 5).join('; ')}`,
    ...(report.overlaps.length === 0 ? [] : [`marks          ${report.marks.join('; ')}`]),
    report.failures.length === 0
      ? 'result         ok'
      : `FAILED         ${report.failures.join('; ')}`,
  ];
}
