// The controller queue's cost (not part of `npm test`). Run from the repository root:
//   node --expose-gc --import ./bench/register.mjs bench/reconcileQueue.bench.ts [--quick]
//     [--rounds=5] [--keys=100000] [--triggers=1000000]   (or: node bench/run.mjs reconcileQueue)
// Each round runs, in child processes taking turns, the same workload through reconcileQueue
// and through the groupBy/mergeMap/concatMap queue users write by hand today:
// 1. Throughput: `triggers` keys drawn from `keys` distinct ones, pushed in batches of 10 000
//    with a turn of the event loop between batches (runs interleave), a no-op async reconcile
//    and concurrency 16. Per trigger: the time spent inside the pushes; per run: the rest of the
//    wall time, divided by the runs (reconcileQueue coalesces, the hand-written queue runs every
//    trigger). Promoted bytes: the scavenges' `promoted=` of --trace-gc-nvp, per trigger.
// 2. Memory: `keys` distinct keys queued behind one blocked run: heap per queued key; then the
//    blocked run ends, the queue drains: heap left over against before (no growth wanted).
// Medians of the rounds, ratios of the same round, and `uptime` (the machine is shared).
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { concatMap, defer, filter, from, groupBy, mergeMap, Subject, type Observable } from 'rxjs';
import { reconcileQueue } from '../src/index.js';

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const quick = process.argv.includes('--quick');
const ROUNDS = Number(option('rounds') ?? (quick ? 3 : 5));
const KEYS = Number(option('keys') ?? (quick ? 20_000 : 100_000));
const TRIGGERS = Number(option('triggers') ?? (quick ? 200_000 : 1_000_000));
const BATCH = 10_000;
const CONCURRENCY = 16;

type Impl = 'reconcileQueue' | 'groupBy' | 'baseline';
type Queue = (
  keys: Observable<string>,
  reconcile: (key: string) => Promise<void>,
) => Observable<unknown>;

const queues: Record<Impl, Queue> = {
  reconcileQueue: (keys, reconcile) =>
    keys.pipe(reconcileQueue(reconcile, { concurrency: CONCURRENCY, rateLimit: false })),
  // What users write today: one serial lane per key, every trigger run, groups kept for ever.
  groupBy: (keys, reconcile) =>
    keys.pipe(
      groupBy((key) => key),
      mergeMap((lane) => lane.pipe(concatMap((key) => defer(() => from(reconcile(key)))))),
    ),
  // The same process, keys and pushes with no queue: what the two are measured against.
  baseline: (keys) => keys.pipe(filter(() => false)),
};

function heapUsed(): number {
  globalThis.gc!();
  globalThis.gc!();
  return process.memoryUsage().heapUsed;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A child's work: prints one JSON line of results. */
async function child(impl: Impl, phase: string): Promise<void> {
  const names = Array.from({ length: KEYS }, (_, i) => `ns-${i % 97}/object-${i}`);
  if (phase === 'throughput') {
    let seed = 42;
    const pick = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % KEYS);
    const order = Int32Array.from({ length: TRIGGERS }, pick);
    let runs = 0;
    const keys = new Subject<string>();
    let completed!: () => void;
    const done = new Promise<void>((resolve) => (completed = resolve));
    queues[impl](keys, async () => void runs++).subscribe({ complete: () => completed() });
    const start = performance.now();
    let inPushes = 0;
    for (let i = 0; i < TRIGGERS; i += BATCH) {
      const t = performance.now();
      for (let j = i; j < Math.min(TRIGGERS, i + BATCH); j++) keys.next(names[order[j]!]!);
      inPushes += performance.now() - t;
      await turn();
    }
    keys.complete();
    await done;
    const total = performance.now() - start;
    console.log(JSON.stringify({ runs, inPushesMs: inPushes, totalMs: total }));
    return;
  }
  // memory: every key queued behind one run that waits for a release, then drained; twice,
  // the first to warm up (compiled code and the like count in the heap too).
  let result = { perKey: 0, leftAfterDrain: 0 };
  for (let cycle = 0; cycle < 2; cycle++) result = await queueAndDrain(impl, names);
  console.log(JSON.stringify(result));
}

async function queueAndDrain(impl: Impl, names: string[]) {
  let release!: () => void;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const keys = new Subject<string>();
  let completed!: () => void;
  const done = new Promise<void>((resolve) => (completed = resolve));
  const before = heapUsed();
  queues[impl](keys, () => (first ? ((first = false), blocked) : Promise.resolve())).subscribe({
    complete: () => completed(),
  });
  for (const name of names) keys.next(name);
  const queued = heapUsed();
  release();
  keys.complete();
  await done;
  const after = heapUsed();
  return { perKey: (queued - before) / KEYS, leftAfterDrain: after - before };
}

function runChild(impl: Impl, phase: string) {
  const args = ['--expose-gc', '--import', './bench/register.mjs'];
  if (phase === 'throughput') args.push('--trace-gc-nvp');
  args.push(fileURLToPath(import.meta.url), `--child=${impl}`, `--phase=${phase}`);
  args.push(`--keys=${KEYS}`, `--triggers=${TRIGGERS}`);
  const out = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (out.status !== 0) throw new Error(`${impl} ${phase} failed: ${out.stderr}`);
  let promoted = 0;
  let result: Partial<Record<string, number>> = {};
  for (const line of out.stdout.split('\n')) {
    if (line.startsWith('{')) result = JSON.parse(line) as Record<string, number>;
    else if (/\bgc=s\b/.test(line)) promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { ...result, promoted } as Record<string, number>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function main(): Promise<void> {
  const childImpl = option('child') as Impl | undefined;
  if (childImpl) return child(childImpl, option('phase') ?? 'throughput');
  console.log(`uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
  console.log(`${KEYS} keys, ${TRIGGERS} triggers, concurrency ${CONCURRENCY}, ${ROUNDS} rounds`);
  const rows: Record<Impl, Array<Record<string, number>>> = {
    reconcileQueue: [],
    groupBy: [],
    baseline: [],
  };
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const impls: Impl[] = round % 2 ? ['groupBy', 'reconcileQueue'] : ['reconcileQueue', 'groupBy'];
    const perRound: Partial<Record<Impl, Record<string, number>>> = {};
    const baseline = runChild('baseline', 'throughput');
    for (const impl of impls) {
      const t = runChild(impl, 'throughput');
      const m = runChild(impl, 'memory');
      const row = {
        runs: t.runs!,
        // Raw: the bare pushes (the baseline's, printed per round) are noise on a loaded machine.
        triggerUs: (t.inPushesMs! * 1000) / TRIGGERS,
        runUs: ((t.totalMs! - t.inPushesMs!) * 1000) / t.runs!,
        totalMs: t.totalMs!,
        promotedPerTrigger: (t.promoted - baseline.promoted) / TRIGGERS,
        bytesPerQueuedKey: m.perKey!,
        leftAfterDrain: m.leftAfterDrain!,
      };
      rows[impl].push(row);
      perRound[impl] = row;
    }
    ratios.push(perRound.groupBy!.totalMs / perRound.reconcileQueue!.totalMs);
    const brief = (row: Record<string, number>) =>
      Object.entries(row)
        .map(([name, value]) => `${name}=${Math.round(value * 100) / 100}`)
        .join(' ');
    for (const impl of impls) console.log(`round ${round + 1} ${impl}: ${brief(perRound[impl]!)}`);
    console.log(
      `round ${round + 1} baseline: µs per bare push ${(baseline.inPushesMs! * 1000) / TRIGGERS}`,
    );
  }
  const fields = [
    ['runs', 'runs', 0],
    ['triggerUs', 'µs per trigger', 3],
    ['runUs', 'µs per run', 3],
    ['totalMs', 'wall ms', 0],
    ['promotedPerTrigger', 'promoted B/trigger', 1],
    ['bytesPerQueuedKey', 'heap B/queued key', 0],
    ['leftAfterDrain', 'heap left after drain (B)', 0],
  ] as const;
  console.log(`\n| ${'medians'.padEnd(26)} | reconcileQueue | groupBy/concatMap |`);
  console.log(`| :${'-'.repeat(25)} | -------------: | ----------------: |`);
  for (const [field, label, digits] of fields) {
    const a = median(rows.reconcileQueue.map((row) => row[field]!)).toFixed(digits);
    const b = median(rows.groupBy.map((row) => row[field]!)).toFixed(digits);
    console.log(`| ${label.padEnd(26)} | ${a.padStart(14)} | ${b.padStart(17)} |`);
  }
  console.log(
    `\nwall time, groupBy / reconcileQueue (median of same-round ratios): ${median(ratios).toFixed(2)}x`,
  );
  console.log(`uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
}

await main();
