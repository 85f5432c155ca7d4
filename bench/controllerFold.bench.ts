// A controller's CPU per event on a busy watch (not part of `npm test`). From the repository root:
//   node --expose-gc --import ./bench/register.mjs bench/controllerFold.bench.ts
//     [--rounds=7] [--objects=1000] [--events=100000] [--base=/path/to/another/checkout]
// One upstream of `objects` deployments (createInformers' `source` seam, a subject: no HTTP, no
// decoding), then `events` MODIFIED events in batches of 1 000 with a turn of the event loop
// between batches: mostly status churn (no run), every 10th a spec change (a run, no-op
// reconcile). Scenarios, each round in a child process of its own:
// - `events`: an `informers.events` subscriber only (the shared watch and resumer alone);
// - `1 controller`: one controller of the deployments;
// - `2 controllers + store`: two controllers (one with an index) and an `informers.store`.
// Per event: the process's CPU (user + system, every thread) while a block of 10 000 events is
// pushed and its runs are done. With `--base`, the child loads both checkouts (the same events,
// two module graphs, two informers) and pushes blocks to one then the other (ABBA, which one is
// set up first alternating between rounds): the same-block ratio this/base is the A/B of a
// change, much steadier on a loaded machine than one process per side. Medians, and `uptime`.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const ROUNDS = Number(option('rounds') ?? 7);
const OBJECTS = Number(option('objects') ?? 1000);
const EVENTS = Number(option('events') ?? 100_000);
const BATCH = 1000;
/** Events per measured block; blocks alternate between the sides. */
const BLOCK = 10_000;
const SCENARIOS = ['events', '1 controller', '2 controllers + store'] as const;
type Scenario = (typeof SCENARIOS)[number];

const here = resolve(fileURLToPath(import.meta.url), '../..');

/** One side of the A/B: a scenario set up on the checkout at `root`, synced, ready to push. */
interface Side {
  /** Pushes events [from, to) in batches with a turn between, and waits for the runs. */
  push(from: number, to: number): Promise<void>;
  close(): void;
}

const turn = () => new Promise<void>((r) => setImmediate(r));

async function sideOf(root: string, scenario: Scenario, events: unknown[]): Promise<Side> {
  const kx = await import(pathToFileURL(resolve(root, 'src/index.ts')).href);
  const kit = await import(pathToFileURL(resolve(root, 'src/testing/index.ts')).href);
  const { Subject, of } = await import('rxjs');
  const cluster = { name: 'bench', resolve: () => Promise.reject(new Error('no cluster')) };
  const listed = Array.from({ length: OBJECTS }, (_, i) =>
    kit.deployment(`d-${i}`, '1', { metadata: { generation: 1 } }),
  );
  const subject = new Subject();
  const informers = kx.createInformers({
    source: (_cluster: unknown, resource: unknown) =>
      kit.marbleWatchSource({
        resource,
        lists: [() => of(kit.listOf(listed, '1'))],
        connections: [() => subject.asObservable()],
      }),
  });
  const deployments = kx.deployments;
  let runs = 0;
  const reconcile = async () => void runs++;
  const subscriptions: { unsubscribe(): void }[] = [];
  const controllerOf = (indexes?: object) =>
    kx
      .controller({
        cluster,
        informers,
        for: { resource: deployments, indexes },
        rateLimit: false,
        concurrency: 4,
        reconcile,
      })
      .subscribe();
  const controllers = scenario === 'events' ? 0 : scenario === '1 controller' ? 1 : 2;
  if (controllers === 0) subscriptions.push(informers.events(cluster, deployments).subscribe());
  if (controllers > 0) subscriptions.push(controllerOf());
  if (controllers > 1) {
    subscriptions.push(controllerOf({ byGeneration: (d: any) => String(d.metadata?.generation) }));
    subscriptions.push(informers.store(cluster, deployments).subscribe());
  }
  // Synced: every controller ran each object once.
  while (runs < OBJECTS * controllers) await turn();
  return {
    async push(from, to) {
      for (let i = from; i < to; i += BATCH) {
        for (let j = i; j < Math.min(to, i + BATCH); j++) subject.next(events[j]);
        await turn();
      }
      // The runs of the spec changes are done: no run for three turns.
      let stable = 0;
      let last = -1;
      while (stable < 3) {
        await turn();
        stable = runs === last ? stable + 1 : 0;
        last = runs;
      }
    },
    close: () => subscriptions.forEach((s) => s.unsubscribe()),
  };
}

/**
 * A child's work: one scenario on both checkouts in one process, blocks of events pushed to
 * one side then the other (ABBA), each block's CPU measured: the load of the machine changes
 * between blocks far less than between processes. Prints the µs per event of each side and
 * the median of the same-pair ratios.
 */
async function child(roots: string[], scenario: Scenario): Promise<void> {
  const kit = await import(pathToFileURL(resolve(roots[0]!, 'src/testing/index.ts')).href);
  const generation = new Array<number>(OBJECTS).fill(1);
  // Built before the clock starts, shared by both sides: what a decoder would hand on.
  const events = Array.from({ length: EVENTS }, (_, i) => {
    const k = i % OBJECTS;
    // Mostly status churn (no run); every 10th a spec change (a run).
    if (i % 10 === 0) generation[k]!++;
    const g = generation[k]!;
    const patch = { metadata: { generation: g }, status: { observedGeneration: g, replicas: i } };
    return kit.modified(kit.deployment(`d-${k}`, String(i + 2), patch));
  });
  const sides = [];
  for (const root of roots) sides.push(await sideOf(root, scenario, events));
  await new Promise((r) => setTimeout(r, 20));
  globalThis.gc?.();
  const cpu = roots.map(() => [] as number[]);
  const blocks = Math.floor(EVENTS / BLOCK);
  for (let b = 0; b < blocks; b++) {
    const order = b % 2 ? [...sides.keys()].reverse() : [...sides.keys()];
    for (const s of order) {
      const before = process.cpuUsage();
      await sides[s]!.push(b * BLOCK, (b + 1) * BLOCK);
      const used = process.cpuUsage(before);
      cpu[s]!.push((used.user + used.system) / BLOCK);
    }
  }
  sides.forEach((side) => side.close());
  // The first block of each side warms it up (JIT): left out.
  const us = cpu.map((blocksUs) => median(blocksUs.slice(1)));
  const ratio = cpu.length > 1 ? median(cpu[0]!.slice(1).map((v, i) => v / cpu[1]![i + 1]!)) : 1;
  console.log(JSON.stringify({ us, ratio }));
  process.exit(0);
}

function runChild(roots: string[], scenario: Scenario): { us: number[]; ratio: number } {
  const result = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      './bench/register.mjs',
      fileURLToPath(import.meta.url),
      `--child=${scenario}`,
      `--roots=${roots.join(',')}`,
      `--objects=${OBJECTS}`,
      `--events=${EVENTS}`,
    ],
    { cwd: here, encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (result.status !== 0) throw new Error(`child failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const base = option('base');
  const roots = base ? [here, resolve(base)] : [here];
  const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
  console.log(`controllerFold: ${OBJECTS} objects, ${EVENTS} events, ${ROUNDS} rounds`);
  console.log(`start: ${uptime()}`);
  const results = new Map<Scenario, { us: number[][]; ratio: number[] }>();
  for (const scenario of SCENARIOS) results.set(scenario, { us: roots.map(() => []), ratio: [] });
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of SCENARIOS) {
      const row = results.get(scenario)!;
      // Which checkout is set up first alternates between rounds too.
      const swap = round % 2 === 1 && roots.length > 1;
      const { us, ratio } = runChild(swap ? [...roots].reverse() : roots, scenario);
      if (swap) us.reverse();
      us.forEach((value, i) => row.us[i]!.push(value));
      row.ratio.push(swap ? 1 / ratio : ratio);
    }
  }
  for (const [scenario, row] of results) {
    const line = `${scenario.padEnd(24)} this ${median(row.us[0]!).toFixed(2)} µs/event`;
    if (!base) console.log(line);
    else {
      const ratios = row.ratio.map((r) => r.toFixed(2)).join(' ');
      console.log(
        `${line}, base ${median(row.us[1]!).toFixed(2)}, this/base median ${median(row.ratio).toFixed(2)} (rounds: ${ratios})`,
      );
    }
  }
  console.log(`end:   ${uptime()}`);
}

const childScenario = option('child');
if (childScenario) await child(option('roots')!.split(','), childScenario as Scenario);
else await main();
