// Sharded controllers (not part of `npm test`). Run from the repository root:
//   node --import ./bench/register.mjs bench/sharding.bench.ts [--objects=2000] [--members=1,2,4]
// For each member count, in one process against one FakeKubeApiServer on loopback: `objects`
// ConfigMaps, members with an I/O-bound reconcile (a fixed 20 ms wait, concurrency 10 each,
// no rate limit), 1 s leases. Reported: the time until every object was assigned and
// reconciled once, the reconciles per second over that first pass (against N times one
// member's), the objects each member cached (its label-selected share), and the time to
// rebalance after one more member joins and after one is stopped.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subscription } from 'rxjs';
import { configmaps, controller } from '../src/index.js';
import { FakeKubeApiServer } from '../src/testing/index.js';

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const objects = Number(option('objects') ?? 2000);
const counts = (option('members') ?? '1,2,4').split(',').map(Number);
const LABEL = 'shard.kube-rx.io/bench';

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

async function round(n: number) {
  const server = await FakeKubeApiServer.start({ http2: false });
  for (let i = 0; i < objects; i++) {
    server.create(configmaps, { metadata: { name: `cm-${i}`, namespace: 'app' } });
  }
  const runsBy = new Map<string, Set<string>>();
  let firstRun = 0;
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
        await sleep(20);
      },
      sharding: {
        ring: 'bench',
        namespace: 'ops',
        identity,
        leaseDurationMs: 1000,
        renewDeadlineMs: 700,
        retryPeriodMs: 100,
      },
    }).subscribe();
    members.set(identity, subscription);
  };
  const labels = () => server.objects(configmaps, 'app').map((cm) => cm.metadata?.labels?.[LABEL]);
  const balanced = (ids: string[]) => {
    const held = new Set<string>();
    for (const label of labels()) {
      if (label === undefined || !ids.includes(label)) return false;
      held.add(label);
    }
    return held.size === ids.length;
  };
  const ids = Array.from({ length: n }, (_, i) => `m${i + 1}`);
  const began = performance.now();
  for (const id of ids) join(id);
  const everyKeyRan = () => new Set([...runsBy.values()].flatMap((s) => [...s])).size === objects;
  await until(() => balanced(ids) && everyKeyRan(), 120_000);
  const firstPassMs = performance.now() - firstRun;
  const assignedMs = performance.now() - began;
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
  await sleep(200);
  await server.stop();
  return {
    n,
    perSecond: objects / (firstPassMs / 1000),
    firstPassMs,
    assignedMs,
    cached,
    joinMs: joinOk ? joinMs : NaN,
    leaveMs: leaveOk ? leaveMs : NaN,
  };
}

console.log(
  `sharding: ${objects} objects, a 20 ms reconcile, concurrency 10 per member, 1 s leases`,
);
let one: number | undefined;
for (const n of counts) {
  const r = await round(n);
  one ??= n === 1 ? r.perSecond : undefined;
  const ratio =
    one !== undefined ? ` (${(r.perSecond / (n * one)).toFixed(2)}x of ${n} x one)` : '';
  console.log(
    `${n} member(s): first pass ${Math.round(r.firstPassMs)} ms, ${Math.round(r.perSecond)} reconciles/s${ratio}; ` +
      `cached per member ${r.cached.join(', ')}; ready in ${Math.round(r.assignedMs)} ms; ` +
      `rebalance after a join ${Math.round(r.joinMs)} ms, after a stop ${Math.round(r.leaveMs)} ms`,
  );
}
process.exit(0);
