// A controller's CPU per event on a busy watch (not part of `npm test`). From the repository root:
//   node --expose-gc --import ./bench/register.mjs bench/controllerFold.bench.ts
//     [--rounds=7] [--objects=1000] [--events=100000] [--base=/path/to/another/checkout]
// One upstream of `objects` deployments (createInformers' `source` seam, a subject: no HTTP, no
// decoding), then `events` MODIFIED events in batches of 1 000 with a turn of the event loop
// between batches: mostly status churn (no run), every 10th a spec change (a run, no-op
// reconcile). Scenarios, each in a child process of its own:
// - `events`: an `informers.events` subscriber only (the shared watch and resumer alone);
// - `1 controller`: one controller of the deployments;
// - `2 controllers + store`: two controllers (one with an index) and an `informers.store`.
// Per event: the process's CPU (user + system, every thread) from the first push until the
// runs are done. With `--base`, every round runs each scenario on both checkouts in turn
// (base first on odd rounds), and prints the same-round ratios this/base: the A/B of a change.
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
const SCENARIOS = ['events', '1 controller', '2 controllers + store'] as const;
type Scenario = (typeof SCENARIOS)[number];

const here = resolve(fileURLToPath(import.meta.url), '../..');

/** A child's work: one scenario on the checkout at `root`; prints its CPU µs per event. */
async function child(root: string, scenario: Scenario): Promise<void> {
  const kx = await import(pathToFileURL(resolve(root, 'src/index.ts')).href);
  const kit = await import(pathToFileURL(resolve(root, 'src/testing/index.ts')).href);
  const { Subject, of } = await import('rxjs');
  const cluster = { name: 'bench', resolve: () => Promise.reject(new Error('no cluster')) };
  const names = Array.from({ length: OBJECTS }, (_, i) => `d-${i}`);
  const generation = new Map<string, number>();
  const listed = names.map((name) => {
    generation.set(name, 1);
    return kit.deployment(name, '1', { metadata: { generation: 1 } });
  });
  // Built before the clock starts: what a decoder would hand on.
  const events = Array.from({ length: EVENTS }, (_, i) => {
    const name = names[i % OBJECTS]!;
    const spec = i % 10 === 0;
    const g = generation.get(name)! + (spec ? 1 : 0);
    generation.set(name, g);
    const rv = String(i + 2);
    const patch = { metadata: { generation: g }, status: { observedGeneration: g, replicas: i } };
    return kit.modified(kit.deployment(name, rv, patch));
  });
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
  const subscriptions = [];
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
  let synced = false;
  if (scenario === 'events') {
    subscriptions.push(informers.events(cluster, deployments).subscribe());
    synced = true;
  } else {
    subscriptions.push(controllerOf());
    if (scenario === '2 controllers + store') {
      subscriptions.push(
        controllerOf({ byGeneration: (d: any) => String(d.metadata?.generation) }),
      );
      subscriptions.push(informers.store(cluster, deployments).subscribe());
    }
  }
  const turn = () => new Promise<void>((r) => setImmediate(r));
  const controllers = scenario === 'events' ? 0 : scenario === '1 controller' ? 1 : 2;
  // Synced: every controller ran each object once.
  while (!synced && runs < OBJECTS * controllers) await turn();
  await new Promise((r) => setTimeout(r, 20));
  globalThis.gc?.();
  const before = process.cpuUsage();
  const startRuns = runs;
  for (let i = 0; i < EVENTS; i += BATCH) {
    for (let j = i; j < Math.min(EVENTS, i + BATCH); j++) subject.next(events[j]);
    await turn();
  }
  // Every spec change ran (runs coalesce: at least one per object that changed at the end).
  let stable = 0;
  let last = -1;
  while (stable < 3) {
    await turn();
    stable = runs === last ? stable + 1 : 0;
    last = runs;
  }
  const cpu = process.cpuUsage(before);
  const us = (cpu.user + cpu.system) / EVENTS;
  subscriptions.forEach((s) => s.unsubscribe());
  console.log(JSON.stringify({ us, runs: runs - startRuns }));
  process.exit(0);
}

function runChild(root: string, scenario: Scenario): { us: number; runs: number } {
  const result = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      './bench/register.mjs',
      fileURLToPath(import.meta.url),
      `--child=${scenario}`,
      `--root=${root}`,
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
  const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
  console.log(`controllerFold: ${OBJECTS} objects, ${EVENTS} events, ${ROUNDS} rounds`);
  console.log(`start: ${uptime()}`);
  const results = new Map<string, { here: number[]; base: number[]; ratio: number[] }>();
  for (const scenario of SCENARIOS) results.set(scenario, { here: [], base: [], ratio: [] });
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of SCENARIOS) {
      const row = results.get(scenario)!;
      if (!base) {
        row.here.push(runChild(here, scenario).us);
        continue;
      }
      const order = round % 2 ? [base, here] : [here, base];
      const [first, second] = order.map((root) => runChild(root, scenario).us);
      const [mine, theirs] = round % 2 ? [second!, first!] : [first!, second!];
      row.here.push(mine);
      row.base.push(theirs);
      row.ratio.push(mine / theirs);
    }
  }
  for (const [scenario, row] of results) {
    const line = `${scenario.padEnd(24)} this ${median(row.here).toFixed(2)} µs/event`;
    if (!base) console.log(line);
    else {
      const ratios = row.ratio.map((r) => r.toFixed(2)).join(' ');
      console.log(
        `${line}, base ${median(row.base).toFixed(2)}, this/base median ${median(row.ratio).toFixed(2)} (${ratios})`,
      );
    }
  }
  console.log(`end:   ${uptime()}`);
}

const childScenario = option('child');
if (childScenario) await child(option('root') ?? here, childScenario as Scenario);
else await main();
