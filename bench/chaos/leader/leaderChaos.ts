import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { Prng } from '../prng.js';
import { waitUntil } from '../sockets.js';

// Two replicas (child processes) run the same whileLeader-gated acting under one Lease; the
// leader is SIGKILLed, the server answers 500 or stalls for a while, connections drop. From
// what each replica says it did (acting intervals, with Date.now(): one machine, one clock),
// it measures the time two replicas acted at once and each takeover after a kill.

export type LeaderFault = 'kill' | 'server-500' | 'stall' | 'disconnect';
const FAULTS: LeaderFault[] = ['kill', 'server-500', 'stall', 'disconnect'];

export interface LeaderChaosOptions {
  seed: number;
  durationMs: number;
  leaseMs?: number;
  renewMs?: number;
  retryMs?: number;
  /** What a takeover may take beyond lease + retry: request latency and process scheduling. */
  slackMs?: number;
  /** A module exporting `act` (see acting.ts); the default is a heartbeat loop. */
  actModule?: string;
  log?: (line: string) => void;
}

export interface LeaderChaosReport {
  durationMs: number;
  faults: Record<LeaderFault, number>;
  replicasStarted: number;
  /** Kill of the acting leader -> another replica acting, in ms. */
  takeoversMs: number[];
  /** Fault on the server -> the leader stopped acting (when it did), in ms. */
  stopsAfterFaultMs: number[];
  /** Total time two replicas were acting at once, and where. */
  overlapMs: number;
  overlaps: string[];
  /** Total time nobody acted (takeovers, faults, start). */
  idleMs: number;
  boundMs: number;
  failures: string[];
}

interface Line {
  at: number;
  identity: string;
  type: string;
  message?: string;
}

const root = fileURLToPath(new URL('../../..', import.meta.url));

class Replica {
  readonly lines: Line[] = [];
  killedAt: number | undefined;
  private readonly child: ChildProcess;
  readonly exited: Promise<void>;

  constructor(
    readonly identity: string,
    args: string[],
    log: (line: string) => void,
  ) {
    this.child = spawn(
      process.execPath,
      ['--import', './bench/register.mjs', 'bench/chaos/leader/replica.ts', ...args],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buffer = '';
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const part of parts) {
        if (part.trim() === '') continue;
        const line = JSON.parse(part) as Line;
        this.lines.push(line);
        if (line.type !== 'act')
          log(`${identity} ${line.type}${line.message ? `: ${line.message}` : ''}`);
      }
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  get acting(): boolean {
    if (this.killedAt !== undefined) return false;
    const last = this.lines.findLast((l) => l.type === 'act-start' || l.type === 'act-stop');
    return last?.type === 'act-start';
  }

  kill(signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL') this.killedAt = Date.now();
    this.child.kill(signal);
  }

  /** [start, end] of each span it acted; a span cut by SIGKILL ends at the kill. */
  intervals(end: number): [number, number][] {
    const spans: [number, number][] = [];
    let start: number | undefined;
    for (const line of this.lines) {
      if (line.type === 'act-start') start = line.at;
      else if (line.type === 'act-stop' && start !== undefined) {
        spans.push([start, line.at]);
        start = undefined;
      }
    }
    if (start !== undefined) spans.push([start, this.killedAt ?? end]);
    return spans;
  }
}

/**
 * Runs the two-replica chaos for `durationMs` and reports; `failures` is empty when no two
 * replicas ever acted at once and every takeover after a kill came within lease + retry (+ slack).
 *
 * @example
 * const report = await runLeaderChaos({ seed: 1, durationMs: 60_000 });
 */
export async function runLeaderChaos(options: LeaderChaosOptions): Promise<LeaderChaosReport> {
  const {
    seed,
    durationMs,
    leaseMs = 2000,
    renewMs = 1400,
    retryMs = 200,
    slackMs = 600,
  } = options;
  const log = options.log ?? (() => undefined);
  const prng = new Prng(seed);
  const server = await FakeKubeApiServer.start({ tls: true });
  const dir = await mkdtemp(join(tmpdir(), 'kube-rx-leader-chaos-'));
  const kubeconfig = await server.writeKubeConfig(join(dir, 'kubeconfig'));
  const leasePath = '/apis/coordination.k8s.io/v1/namespaces/chaos/leases/leader';
  const replicas: Replica[] = [];
  const faults: Record<LeaderFault, number> = { kill: 0, 'server-500': 0, stall: 0, disconnect: 0 };
  const takeoversMs: number[] = [];
  const stopsAfterFaultMs: number[] = [];
  const failures: string[] = [];
  const boundMs = leaseMs + retryMs;
  const start = (): Replica => {
    const identity = `replica-${replicas.length + 1}`;
    const args = ['--kubeconfig', kubeconfig, '--identity', identity];
    args.push('--lease', String(leaseMs), '--renew', String(renewMs), '--retry', String(retryMs));
    if (options.actModule) args.push('--act', options.actModule);
    const replica = new Replica(identity, args, log);
    replicas.push(replica);
    log(`start ${identity}`);
    return replica;
  };
  const live = (): Replica[] => replicas.filter((r) => r.killedAt === undefined);
  const leader = (): Replica | undefined => live().find((r) => r.acting);

  start();
  start();
  // Loading the TypeScript sources takes a while on a loaded machine: the run starts once both
  // replicas are up.
  const up = await waitUntil(
    () => replicas.every((r) => r.lines.some((l) => l.type === 'started')),
    180_000,
  );
  if (!up) failures.push('the replicas did not start within 180 s');
  const began = Date.now();
  try {
    while (up && Date.now() - began < durationMs) {
      if (!(await waitUntil(() => leader() !== undefined, 4 * leaseMs + 10_000))) {
        failures.push(`nobody acted for ${4 * leaseMs + 10_000} ms`);
        break;
      }
      await sleep(prng.between(retryMs * 2, leaseMs));
      const current = leader();
      if (current === undefined) continue;
      const fault = FAULTS[prng.int(FAULTS.length)];
      faults[fault]++;
      const at = Date.now();
      log(`fault ${fault} (leader ${current.identity})`);
      if (fault === 'kill') {
        current.kill('SIGKILL');
        const next = await waitUntil(() => leader() !== undefined, boundMs + 10_000);
        const took = replicas
          .filter((r) => r !== current)
          .flatMap((r) => r.lines.filter((l) => l.type === 'act-start' && l.at >= at))
          .map((l) => l.at - at)
          .sort((a, b) => a - b)[0];
        if (!next || took === undefined)
          failures.push(`no takeover after killing ${current.identity}`);
        else {
          takeoversMs.push(took);
          if (took > boundMs + slackMs)
            failures.push(`takeover took ${took} ms (bound ${boundMs} + ${slackMs})`);
        }
        // Two replicas again before the next fault: the new one is a standby once it is up.
        const replacement = start();
        if (!(await waitUntil(() => replacement.lines.some((l) => l.type === 'started'), 180_000)))
          failures.push(`${replacement.identity} did not start within 180 s`);
      } else if (fault === 'disconnect') {
        server.disconnectAll();
      } else {
        const lastingMs = prng.between(Math.round(renewMs / 2), 2 * leaseMs);
        if (fault === 'server-500') server.faults.fail(500, { times: 1_000_000, path: leasePath });
        else server.faults.delayHeaders(lastingMs, { times: 1_000_000 });
        await sleep(lastingMs);
        server.faults.reset();
        const stop = current.lines.find((l) => l.type === 'act-stop' && l.at >= at);
        if (stop !== undefined) stopsAfterFaultMs.push(stop.at - at);
      }
    }
  } finally {
    for (const replica of live()) replica.kill('SIGTERM');
    await Promise.race([Promise.all(replicas.map((r) => r.exited)), sleep(renewMs + 5000)]);
    for (const replica of live()) replica.kill('SIGKILL');
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const ended = Date.now();

  // Every pair of spans of two different replicas: the time they overlap.
  const spans = replicas.flatMap((r) => r.intervals(ended).map(([s, e]) => ({ r, s, e })));
  let overlapMs = 0;
  const overlaps: string[] = [];
  for (let i = 0; i < spans.length; i++) {
    for (let j = i + 1; j < spans.length; j++) {
      const [a, b] = [spans[i], spans[j]];
      if (a.r === b.r) continue;
      const both = Math.min(a.e, b.e) - Math.max(a.s, b.s);
      if (both > 0) {
        overlapMs += both;
        overlaps.push(
          `${a.r.identity} and ${b.r.identity} for ${both} ms at +${Math.max(a.s, b.s) - began} ms`,
        );
      }
    }
  }
  if (overlapMs > 0) failures.push(`two replicas acted at once for ${overlapMs} ms`);
  const covered = spans
    .map(({ s, e }) => [s, e] as const)
    .sort((x, y) => x[0] - y[0])
    .reduce<{ total: number; end: number }>(
      (acc, [s, e]) => ({
        total: acc.total + Math.max(0, e - Math.max(s, acc.end)),
        end: Math.max(acc.end, e),
      }),
      { total: 0, end: began },
    ).total;
  return {
    durationMs: ended - began,
    faults,
    replicasStarted: replicas.length,
    takeoversMs,
    stopsAfterFaultMs,
    overlapMs,
    overlaps,
    idleMs: ended - began - covered,
    boundMs,
    failures,
  };
}

const stats = (values: number[]): string => {
  if (values.length === 0) return 'none';
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `n=${sorted.length} min ${sorted[0]} median ${median} max ${sorted.at(-1)} ms`;
};

/** The report as lines for a terminal. */
export function formatLeaderReport(report: LeaderChaosReport): string[] {
  return [
    `duration       ${Math.round(report.durationMs / 1000)} s, ${report.replicasStarted} replicas started`,
    `faults         ${Object.entries(report.faults)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `takeovers      ${stats(report.takeoversMs)} (bound lease + retry = ${report.boundMs} ms)`,
    `stop on fault  ${stats(report.stopsAfterFaultMs)}`,
    `two acting     ${report.overlapMs} ms${report.overlaps.length ? `: ${report.overlaps.join('; ')}` : ''}`,
    `nobody acting  ${report.idleMs} ms`,
    report.failures.length === 0
      ? 'result         ok'
      : `FAILED         ${report.failures.join('; ')}`,
  ];
}
