// How fast FakeKubeApiServer serves paged lists of pods of about 5 KB (not a test):
//   node --max-old-space-size=8192 --import ./bench/register.mjs bench/fakeServerList.bench.ts \
//     [count] [limit] [rounds] [--alt=<dist of another build>]
// The pods are the scale benchmark's (bench/watch/pods.mjs: labels, owners, managedFields, two
// containers, status). A client in its own process (bench/scale/rawList.mjs) reads every page
// over HTTP/1.1 keep-alive without decoding, so the figure is the server's, not the client's.
// With --alt, a second server from that build holds the same pods and the rounds alternate
// between the two; prints MB/s per round, the medians and their ratio.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { FakeKubeApiServer } from '../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pods } from '../src/objects/resources.js';
import type { KubernetesObject } from '../src/types.js';

const args = process.argv.slice(2);
const [count = 100_000, limit = 500, rounds = 5] = args
  .filter((a) => !a.startsWith('--'))
  .map(Number);
const alt = args.find((a) => a.startsWith('--alt='))?.slice('--alt='.length);
process.env.BENCH_PODS = String(count);
// A plain JavaScript module: typed here by what this bench uses of it.
const podsModule = './watch/pods.mjs';
const { podTemplates } = (await import(podsModule)) as {
  podTemplates(): { json: Buffer }[];
};

type Server = Pick<FakeKubeApiServer, 'url' | 'create' | 'stop'>;
const servers: { name: string; server: Server }[] = [
  {
    name: 'this build',
    server: await FakeKubeApiServer.start({ historySize: 0, bookmarkIntervalMs: 0 }),
  },
];
if (alt !== undefined) {
  const { FakeKubeApiServer: Other } = (await import(`${alt}/testing/index.js`)) as {
    FakeKubeApiServer: typeof FakeKubeApiServer;
  };
  servers.push({ name: alt, server: await Other.start({ historySize: 0, bookmarkIntervalMs: 0 }) });
}
const t0 = performance.now();
for (const { json } of podTemplates()) {
  const pod = JSON.parse(json.toString('utf8')) as KubernetesObject;
  delete pod.metadata!.resourceVersion;
  for (const { server } of servers) server.create(pods, pod);
}
console.log(`${count} pods created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const client = fileURLToPath(new URL('./scale/rawList.mjs', import.meta.url));
async function readAll(url: string): Promise<{ ms: number; bytes: number; pages: number }> {
  const child = fork(client, [url, String(limit), 'full', 'test-token'], { stdio: 'pipe' });
  let out = '';
  child.stdout!.on('data', (data: Buffer) => (out += data.toString()));
  child.stderr!.pipe(process.stderr);
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`the list client failed (exit ${code})`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number; bytes: number; pages: number };
}

const rates = servers.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < servers.length; k++) {
    // Alternate which server goes first, so neither always reads a warmer machine.
    const i = (k + round) % servers.length;
    const { ms, bytes, pages } = await readAll(servers[i].server.url);
    const rate = bytes / 1e6 / (ms / 1000);
    rates[i].push(rate);
    console.log(
      `round ${round + 1} ${servers[i].name}: ${pages} pages, ${(bytes / 1e6).toFixed(0)} MB in ${(ms / 1000).toFixed(2)} s: ${rate.toFixed(0)} MB/s`,
    );
  }
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
servers.forEach(({ name }, i) =>
  console.log(
    `median list throughput, ${name}: ${median(rates[i]).toFixed(0)} MB/s (limit ${limit})`,
  ),
);
if (servers.length === 2)
  console.log(`ratio this build / alt: ${(median(rates[0]) / median(rates[1])).toFixed(2)}x`);
for (const { server } of servers) await server.stop();
