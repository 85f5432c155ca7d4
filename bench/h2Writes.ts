// The HTTP/2 write-latency repro (issue 37's finding): a FakeKubeApiServer over TLS offering h2
// in a child process, and `--writes` merge patches (a label on ConfigMaps) with `--inflight` at a
// time through `resourceApi`, in rounds that alternate HTTP/2 and HTTP/1.1 (`http2: false`) so
// that both see the same load. Per round: wall time, CPU of this process and of the server, and
// the most requests the server had in flight at once.
//   node --import ./bench/register.mjs bench/h2Writes.ts [--writes=1000] [--inflight=64]
//     [--rounds=4] [--objects=1000] [--watches=0] [--modes=h2,http/1.1] [--watch-over=<mode>]
// `--modes`: h2, h2x16 (below) and http/1.1 over TLS (one server offering both by ALPN), `plain`: HTTP/1.1
// without TLS (another server in the same process, with the same objects).
// `--watches=N`: N watches of the namespace run throughout on each protocol's connection (as
// the sharding bench's sharder and members watch while the sharder writes labels).
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { configmaps, kubeConfigConnection, resourceApi, watchResource } from '../src/index.js';

// `--key=value` options (benchArgs' reading, typed here).
const args: Record<string, string | undefined> = Object.fromEntries(
  process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=') as [string, string]),
);
const WRITES = Number(args.writes ?? 1000);
const INFLIGHT = Number(args.inflight ?? 64);
const ROUNDS = Number(args.rounds ?? 4);
const OBJECTS = Number(args.objects ?? 1000);
const WATCHES = Number(args.watches ?? 0);
// `h2x16` (a mode): HTTP/2 to a server (the same objects) whose SETTINGS allow 16 streams per
// session, so that 64 writes take 4 sessions, each its own TLS connection: an experiment on the
// one-connection lockstep.

interface ServerStats {
  cpuMs: number;
  maxInFlight: number;
  /** The server's main thread: time on a CPU, and runnable but waiting for one (ns). */
  runNs: number;
  waitNs: number;
}

/** This process's main thread: time on a CPU and runnable but waiting for one (ns). */
function schedstat(): { runNs: number; waitNs: number } {
  const [runNs, waitNs] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8')
    .split(' ')
    .map(Number);
  return { runNs, waitNs };
}

const child = fork(fileURLToPath(new URL('./h2WritesServer.ts', import.meta.url)), [], {
  execArgv: ['--import', './bench/register.mjs'],
  env: { ...process.env, OBJECTS: String(OBJECTS) },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [{ kubeconfig, plain, limited }] = (await once(child, 'message')) as [
  { kubeconfig: string; plain: string; limited: string },
];
const kc = new KubeConfig();
kc.loadFromString(kubeconfig);
const plainKc = new KubeConfig();
plainKc.loadFromString(plain);
const limitedKc = new KubeConfig();
limitedKc.loadFromString(limited);

const ask = async (): Promise<ServerStats> => {
  const answer = once(child, 'message') as Promise<[ServerStats]>;
  child.send('stats');
  return (await answer)[0];
};

const connections = {
  h2: kubeConfigConnection(kc),
  'http/1.1': kubeConfigConnection(kc, { http2: false }),
  plain: kubeConfigConnection(plainKc),
  h2x16: kubeConfigConnection(limitedKc),
};
type Mode = keyof typeof connections;
const MODES = (args.modes ?? 'h2,http/1.1').split(',') as Mode[];
const apis = {
  h2: resourceApi(connections.h2, configmaps),
  'http/1.1': resourceApi(connections['http/1.1'], configmaps),
  plain: resourceApi(connections.plain, configmaps),
  h2x16: resourceApi(connections.h2x16, configmaps),
};
const stopWatches = new AbortController();
let watchEvents = 0;
// `--watch-over=<mode>`: every watch on that mode's connection instead of its own mode's.
const watchOver = args['watch-over'] as Mode | undefined;
for (const mode of MODES) {
  const connection = connections[watchOver ?? mode];
  for (let w = 0; w < WATCHES; w++) {
    void (async () => {
      const events = watchResource(connection, configmaps, {
        namespace: 'app',
        signal: stopWatches.signal,
      });
      for await (const _event of events) watchEvents++;
    })();
  }
}

let value = 0;
let emptyAnswers = 0;
/** Each write's time to its answer (ms), this round's. */
let latencies: number[] = [];
/** p50 / p90 / p99 / max of `values` (ms). */
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
  return [at(0.5), at(0.9), at(0.99), sorted[sorted.length - 1]]
    .map((x) => x.toFixed(1))
    .join(' / ');
};
async function round(mode: Mode): Promise<void> {
  const api = apis[mode];
  value++;
  let next = 0;
  const worker = async () => {
    while (next < WRITES) {
      const i = next++;
      const sentAt = performance.now();
      const written = await api.patch(
        `cm-${i % OBJECTS}`,
        { metadata: { labels: { shard: `s-${value}` } } },
        { namespace: 'app', type: 'merge' },
      );
      // A 2xx answer must carry the object (an empty body would be read as undefined).
      if (written === undefined) emptyAnswers++;
      latencies.push(performance.now() - sentAt);
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
}

interface Row {
  wallMs: number;
  cpuMs: number;
  serverCpuMs: number;
  /** Main threads' time neither on a CPU nor waiting for one: waiting for the other side. */
  idleMs: number;
  serverIdleMs: number;
}
const rows: Record<string, Row[]> = {};
for (const mode of MODES) rows[mode] = [];
// A warm-up of each protocol: connections, JIT.
for (const mode of MODES) await round(mode);
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? MODES : [...MODES].reverse();
  for (const name of order) {
    const before = await ask();
    latencies = [];
    const sched = schedstat();
    const cpu = process.cpuUsage();
    const start = performance.now();
    await round(name);
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    const schedAfter = schedstat();
    const after = await ask();
    const busy = (a: { runNs: number; waitNs: number }, b: { runNs: number; waitNs: number }) =>
      (b.runNs - a.runNs + b.waitNs - a.waitNs) / 1e6;
    const row: Row = {
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      serverCpuMs: after.cpuMs - before.cpuMs,
      idleMs: wallMs - busy(sched, schedAfter),
      // The server's counters span the two IPC round trips too: a little more than the round.
      serverIdleMs: wallMs - busy(before, after),
    };
    rows[name].push(row);
    console.log(
      `round ${r} ${name.padEnd(8)} wall ${wallMs.toFixed(0).padStart(5)} ms  client CPU ${row.cpuMs
        .toFixed(0)
        .padStart(4)} ms  server CPU ${row.serverCpuMs.toFixed(0).padStart(4)} ms  idle ${row.idleMs
        .toFixed(0)
        .padStart(
          4,
        )} / ${row.serverIdleMs.toFixed(0).padStart(4)} ms  server max in flight ${after.maxInFlight}  latency ${spread(latencies)}`,
    );
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const [name, list] of Object.entries(rows)) {
  console.log(
    `${name.padEnd(8)} median wall ${median(list.map((x) => x.wallMs)).toFixed(0)} ms, client CPU ${median(
      list.map((x) => x.cpuMs),
    ).toFixed(
      0,
    )} ms, server CPU ${median(list.map((x) => x.serverCpuMs)).toFixed(0)} ms, idle ${median(
      list.map((x) => x.idleMs),
    ).toFixed(0)} / ${median(list.map((x) => x.serverIdleMs)).toFixed(0)} ms (client / server)`,
  );
}
stopWatches.abort();
console.log(`watch events: ${watchEvents}, empty answers: ${emptyAnswers}`);
child.disconnect();
