// The writes benchmark (not part of `npm test`): `npm run bench -- writes` (builds dist/ first),
// or node bench/writes.bench.mjs [--writes=4000] [--warmup=500] [--rounds=3] [--inflight=1,16]
//   [--ops=apply,merge] [--only=kube-rx,client-node] [--objects=64]
// The real-cluster mode: one FakeKubeApiServer over TLS offering h2 by ALPN, in a process of its
// own (bench/writes/server.mjs), holding the same ConfigMaps for every client. Each client
// writes them in turns, `inflight` writes at a time (each worker its own objects, so no write
// conflicts with another): kube-rx `resourceApi` (HTTP/2) against client-node's
// `KubernetesObjectApi` (HTTPS/1.1), each with server-side apply (`apply`: force, one field
// manager) and a merge patch (`merge`), in interleaved rounds, in this process (the server's CPU
// is not counted). Per configuration: writes/s, p50/p99 latency, CPU µs per write
// (process.cpuUsage, every thread), after `warmup` writes; then the medians over rounds and the
// medians of same-round ratios kube-rx / client-node (DESIGN's writes target: >= 3x the writes
// per second at 16 in flight, <= 0.3x the CPU per write). Apply rows are skipped when the
// server answers 415 (a test server without server-side apply).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { URL, fileURLToPath } from 'node:url';
import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { configmaps, resourceApi } from '../dist/index.js';
import { benchArgs } from './args.mjs';
import { benchKubeConfig } from './benchKubeConfig.mjs';

const args = benchArgs();
const WRITES = Number(args.writes ?? (args.quick ? 1000 : 4000));
const WARMUP = Number(args.warmup ?? Math.min(500, WRITES));
const ROUNDS = Number(args.rounds ?? (args.quick ? 1 : 3));
const INFLIGHT = (args.inflight ?? '1,16').split(',').map(Number);
const OPS = (args.ops ?? 'apply,merge').split(',');
const CLIENTS = (args.only ?? 'kube-rx,client-node').split(',');
const OBJECTS = Number(args.objects ?? 64);
const NAMESPACE = 'bench';
const FIELD_MANAGER = 'bench-writer';

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

const server = fork(fileURLToPath(new URL('./writes/server.mjs', import.meta.url)), [], {
  env: { ...process.env, BENCH_OBJECTS: String(OBJECTS) },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [{ url }] = await once(server, 'message');
const kc = await benchKubeConfig(url);

/** One write of object `i` (the value `n` changes every time), per client and operation. */
function writers() {
  const api = resourceApi(kc, configmaps);
  const objectApi = KubernetesObjectApi.makeApiClient(kc);
  const object = (i, n) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `bench-${i}`, namespace: NAMESPACE },
    data: { n: String(n) },
  });
  return {
    'kube-rx': {
      apply: (i, n) => api.apply(object(i, n), { fieldManager: FIELD_MANAGER, force: true }),
      merge: (i, n) =>
        api.patch(
          `bench-${i}`,
          { data: { n: String(n) } },
          {
            namespace: NAMESPACE,
            type: 'merge',
            fieldManager: FIELD_MANAGER,
          },
        ),
    },
    'client-node': {
      apply: (i, n) =>
        objectApi.patch(
          object(i, n),
          undefined,
          undefined,
          FIELD_MANAGER,
          true,
          PatchStrategy.ServerSideApply,
        ),
      merge: (i, n) =>
        objectApi.patch(
          object(i, n),
          undefined,
          undefined,
          FIELD_MANAGER,
          undefined,
          PatchStrategy.MergePatch,
        ),
    },
  };
}
const write = writers();

let counter = 0;
/** `count` writes, `inflight` at a time; each worker cycles over its own objects. */
async function run(client, op, inflight, count) {
  const latencies = new Float64Array(count);
  let next = 0;
  const perWorker = Math.max(1, Math.floor(OBJECTS / inflight));
  const worker = async (w) => {
    let k = 0;
    for (let index = next++; index < count; index = next++) {
      const i = (w * perWorker + (k++ % perWorker)) % OBJECTS;
      const started = performance.now();
      await write[client][op](i, ++counter);
      latencies[index] = performance.now() - started;
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: inflight }, (_, w) => worker(w)));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    writesPerSecond: count / (wallMs / 1000),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    cpuMicrosPerWrite: (used.user + used.system) / count,
  };
}

// Server-side apply is measured only where the server serves it.
let ops = OPS;
if (ops.includes('apply')) {
  try {
    await write['kube-rx'].apply(0, ++counter);
  } catch (error) {
    if (error?.statusCode !== 415) throw error;
    console.log('apply: skipped (the test server answers 415: no server-side apply yet)');
    ops = ops.filter((op) => op !== 'apply');
  }
}

const configs = ops.flatMap((op) => INFLIGHT.map((inflight) => ({ op, inflight })));
const results = new Map(); // `${client} ${op} ${inflight}` -> per-round results
console.log(
  `writes: ${WRITES} per configuration after ${WARMUP} warm-up, ${ROUNDS} round(s), ${OBJECTS} ConfigMaps, TLS with h2 offered (${url})`,
);
for (let round = 0; round < ROUNDS; round++) {
  // The order of the clients alternates between rounds: neither always runs on a warmer machine.
  const clients = round % 2 ? [...CLIENTS].reverse() : CLIENTS;
  for (const { op, inflight } of configs) {
    for (const client of clients) {
      await run(client, op, inflight, WARMUP);
      const result = await run(client, op, inflight, WRITES);
      const key = `${client} ${op} ${inflight}`;
      results.set(key, [...(results.get(key) ?? []), result]);
      console.log(
        `round ${round + 1} ${key.padEnd(22)} ${result.writesPerSecond.toFixed(0).padStart(7)} writes/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  ${result.cpuMicrosPerWrite.toFixed(0)} µs CPU/write`,
      );
    }
  }
}

console.log('\nmedians over rounds');
console.log('| client | op | in flight | writes/s | p50 ms | p99 ms | CPU µs/write |');
console.log('| :-- | :-- | --: | --: | --: | --: | --: |');
for (const [key, rounds] of results) {
  const [client, op, inflight] = key.split(' ');
  const m = (field) => median(rounds.map((r) => r[field]));
  console.log(
    `| ${client} | ${op} | ${inflight} | ${m('writesPerSecond').toFixed(0)} | ${m('p50').toFixed(2)} | ${m('p99').toFixed(2)} | ${m('cpuMicrosPerWrite').toFixed(0)} |`,
  );
}
if (CLIENTS.includes('kube-rx') && CLIENTS.includes('client-node')) {
  console.log(
    '\nkube-rx / client-node, medians of same-round ratios (target at 16 in flight: writes/s >= 3x, CPU/write <= 0.3x)',
  );
  for (const { op, inflight } of configs) {
    const ours = results.get(`kube-rx ${op} ${inflight}`);
    const theirs = results.get(`client-node ${op} ${inflight}`);
    const ratio = (field) => median(ours.map((r, i) => r[field] / theirs[i][field]));
    console.log(
      `${op} ${String(inflight).padStart(2)} in flight: writes/s ${ratio('writesPerSecond').toFixed(2)}x, CPU/write ${ratio('cpuMicrosPerWrite').toFixed(2)}x, p50 ${ratio('p50').toFixed(2)}x, p99 ${ratio('p99').toFixed(2)}x`,
    );
  }
}
server.disconnect();
process.exit(0);
