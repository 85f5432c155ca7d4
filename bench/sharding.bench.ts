// Sharded controllers (not part of `npm test`). Run from the repository root:
//   node --import ./bench/register.mjs bench/sharding.bench.ts [--objects=2000] [--members=1,2,4]
//     [--writes=N] (the sharder's writeConcurrency; default its own) [--repeat=K] (best of K)
// For each member count, in one process against one FakeKubeApiServer on loopback: `objects`
// ConfigMaps, members with an I/O-bound reconcile (a fixed 20 ms wait, concurrency 10 each,
// no rate limit), 1 s leases. Reported: the time until every object was assigned and
// reconciled once, the reconciles per second over that first pass (against N times one
// member's), the objects each member cached (its label-selected share), and the time to
// rebalance after one more member joins and after one is stopped.
// The bench observes cheaply, so that it does not measure itself: the first pass ends in the
// reconcile that runs the last new key, and the labels are read from one metadata-only watch
// (polling the fake server's objects, a clone of 2 000 every 10 ms, took 27% of the process's
// CPU in a profile and held 4 members to 0.6x).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subscription } from 'rxjs';
import { configmaps, controller, fromWatch, metadataOnly } from '../src/index.js';
import { FakeKubeApiServer } from '../src/testing/index.js';

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const objects = Number(option('objects') ?? 2000);
const counts = (option('members') ?? '1,2,4').split(',').map(Number);
const writes = option('writes') === undefined ? undefined : Number(option('writes'));
/** Rounds so far: each has its own ring (below). */
let rounds = 0;

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

async function round(n: number) {
  // A ring of its own: a member of an earlier round still winding down (its server's port may
  // be the new one's) never takes part. One interleaved run once kept a 1-member round of 300 ms
  // with 432 objects cached, which this rules out as a cause.
  const ring = `bench${++rounds}`;
  const LABEL = `shard.kube-rx.io/${ring}`;
  const server = await FakeKubeApiServer.start({ http2: false });
  for (let i = 0; i < objects; i++) {
    server.create(configmaps, { metadata: { name: `cm-${i}`, namespace: 'app' } });
  }
  const runsBy = new Map<string, Set<string>>();
  const ran = new Set<string>();
  const running = new Map<string, number>();
  const inFlight = new Set<string>();
  let mostRunning = 0;
  let twice = 0;
  let firstRun = 0;
  let lastFirstRun = 0;
  const members = new Map<string, Subscription>();
  const join = (identity: string) => {
    runsBy.set(identity, new Set());
    const subscription = controller({
      cluster: server.kubeConfig(),
      for: { resource: configmaps, options: { namespace: 'app' } },
      rateLimit: false,
      concurrency: 10,
      reconcile: async (_, { key }) => {
        firstRun ||= performance.now();
        runsBy.get(identity)!.add(key);
        if (!ran.has(key)) {
          ran.add(key);
          lastFirstRun = performance.now();
        }
        // What no member may exceed: its concurrency, and one run of a key at a time.
        const active = (running.get(identity) ?? 0) + 1;
        running.set(identity, active);
        mostRunning = Math.max(mostRunning, active);
        if (inFlight.has(key)) twice++;
        inFlight.add(key);
        try {
          await sleep(20);
        } finally {
          inFlight.delete(key);
          running.set(identity, running.get(identity)! - 1);
        }
      },
      sharding: {
        ring,
        namespace: 'ops',
        identity,
        leaseDurationMs: 1000,
        renewDeadlineMs: 700,
        retryPeriodMs: 100,
        ...(writes !== undefined && { writeConcurrency: writes }),
      },
    }).subscribe();
    members.set(identity, subscription);
  };
  // The labels as one metadata-only watch sees them: an event per write, no clone per look.
  const labelled = new Map<string, string | undefined>();
  const watcher = fromWatch(server.kubeConfig(), metadataOnly(configmaps), {
    namespace: 'app',
  }).subscribe((event) => {
    if (event.type === 'ERROR' || event.type === 'BOOKMARK') return;
    const name = event.object.metadata.name!;
    if (event.type === 'DELETED') labelled.delete(name);
    else labelled.set(name, event.object.metadata.labels?.[LABEL]);
  });
  const labels = () => [...labelled.values()];
  const balanced = (ids: string[]) => {
    const all = labels();
    if (all.length !== objects) return false;
    const held = new Set<string>();
    for (const label of all) {
      if (label === undefined || !ids.includes(label)) return false;
      held.add(label);
    }
    return held.size === ids.length;
  };
  const ids = Array.from({ length: n }, (_, i) => `m${i + 1}`);
  const began = performance.now();
  for (const id of ids) join(id);
  // When every object first carried a label: the sharder's share of the first pass.
  let labelledAt = NaN;
  // A first pass that never ends is a failure, never a rate (it once read 3 963/s: 656 of
  // 2 000 keys run, then none for 120 s, the member's own sharder holding its Lease).
  const allRan = await until(() => {
    if (Number.isNaN(labelledAt) && labels().filter(Boolean).length === objects) {
      labelledAt = performance.now();
    }
    return ran.size === objects;
  }, 120_000);
  const firstPassMs = lastFirstRun - firstRun;
  const assignedMs = lastFirstRun - began;
  await until(() => balanced(ids), 60_000);
  const cached = ids.map((id) => labels().filter((l) => l === id).length);
  const joined = performance.now();
  join(`m${n + 1}`);
  const joinOk = await until(() => balanced([...ids, `m${n + 1}`]), 60_000);
  const joinMs = performance.now() - joined;
  const stopped = performance.now();
  members.get('m1')!.unsubscribe();
  members.delete('m1');
  const rest = [...ids.slice(1), `m${n + 1}`];
  const leaveOk = await until(() => balanced(rest), 60_000);
  const leaveMs = performance.now() - stopped;
  for (const s of members.values()) s.unsubscribe();
  watcher.unsubscribe();
  await sleep(200);
  await server.stop();
  return {
    n,
    perSecond: allRan ? objects / (firstPassMs / 1000) : NaN,
    unrun: objects - ran.size,
    firstPassMs,
    assignedMs,
    labelledMs: labelledAt - began,
    cached,
    joinMs: joinOk ? joinMs : NaN,
    leaveMs: leaveOk ? leaveMs : NaN,
    mostRunning,
    twice,
  };
}

console.log(
  `sharding: ${objects} objects, a 20 ms reconcile, concurrency 10 per member, 1 s leases`,
);
// Rounds interleaved (1, 2, 4, 1, 2, 4, ...) and the best of each count kept: on a machine
// shared with other work, the best round is the one least slowed by it.
const repeat = Number(option('repeat') ?? 1);
const best = new Map<number, Awaited<ReturnType<typeof round>>>();
for (let k = 0; k < repeat; k++) {
  for (const n of counts) {
    const r = await round(n);
    console.log(
      `  round ${k + 1}, ${n} member(s): ${Math.round(r.perSecond)} reconciles/s, all labelled at ${Math.round(r.labelledMs)} ms, ` +
        `every key run at ${Math.round(r.assignedMs)} ms; join ${Math.round(r.joinMs)} ms, stop ${Math.round(r.leaveMs)} ms; ` +
        `most runs at once on a member ${r.mostRunning}, a key run twice at once ${r.twice} times` +
        (r.unrun > 0 ? `; ${r.unrun} keys never ran` : ''),
    );
    const prior = best.get(n);
    if (!prior || Number.isNaN(prior.perSecond) || prior.perSecond < r.perSecond) best.set(n, r);
  }
}
const one = best.get(1)?.perSecond;
for (const n of counts) {
  const r = best.get(n)!;
  const ratio =
    one !== undefined ? ` (${(r.perSecond / (n * one)).toFixed(2)}x of ${n} x one)` : '';
  console.log(
    `${n} member(s): first pass ${Math.round(r.firstPassMs)} ms, ${Math.round(r.perSecond)} reconciles/s${ratio}; ` +
      `cached per member ${r.cached.join(', ')}; all labelled at ${Math.round(r.labelledMs)} ms, every key run at ${Math.round(r.assignedMs)} ms; ` +
      `rebalance after a join ${Math.round(r.joinMs)} ms, after a stop ${Math.round(r.leaveMs)} ms`,
  );
}
process.exit(0);
