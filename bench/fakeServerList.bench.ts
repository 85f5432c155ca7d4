// How fast FakeKubeApiServer serves paged lists of 100 000 pods of about 5 KB (not a test):
//   node --max-old-space-size=6144 --import ./bench/register.mjs bench/fakeServerList.bench.ts [count] [limit] [runs]
// Reads every page with undici (node's fetch) over HTTP/1.1 keep-alive and reports MB/s per run
// and the median, bodies read but not parsed, so the figure is the server's.
import { FakeKubeApiServer } from '../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pods } from '../src/sources/resources.js';
import type { V1Pod } from '@kubernetes/client-node';
import { podJson } from './storePods.js';

const [count = 100_000, limit = 500, runs = 5] = process.argv.slice(2).map(Number);
const padding = { 'example.com/notes': 'x'.repeat(2700) };
const server = await FakeKubeApiServer.start({ historySize: 0, bookmarkIntervalMs: 0 });
const t0 = performance.now();
for (let i = 0; i < count; i++) {
  const p = JSON.parse(podJson(i, 0)) as V1Pod;
  p.metadata!.annotations = { ...p.metadata!.annotations, ...padding };
  server.create(pods, p);
}
const sample = JSON.stringify(server.get(pods, 'team-0', JSON.parse(podJson(0, 0)).metadata.name));
console.log(
  `${count} pods of ${sample.length} bytes created in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

const headers = { authorization: 'Bearer test-token' };
const rates: number[] = [];
for (let run = 0; run < runs; run++) {
  let bytes = 0;
  let items = 0;
  let token: string | undefined;
  const start = performance.now();
  do {
    const q = new URLSearchParams({ limit: String(limit), ...(token ? { continue: token } : {}) });
    const body = await (await fetch(`${server.url}/api/v1/pods?${q}`, { headers })).text();
    bytes += Buffer.byteLength(body);
    // The continue token sits in the metadata at the head of the body: no full parse needed.
    token = /"continue":"([^"]+)"/.exec(body.slice(0, 400))?.[1];
    items += (body.match(/"kind":"Pod"/g) ?? []).length;
  } while (token !== undefined);
  const seconds = (performance.now() - start) / 1000;
  rates.push(bytes / 1e6 / seconds);
  console.log(
    `run ${run + 1}: ${items} pods, ${(bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(2)} s: ${(bytes / 1e6 / seconds).toFixed(0)} MB/s`,
  );
}
rates.sort((a, b) => a - b);
console.log(
  `median list throughput: ${rates[Math.floor(rates.length / 2)].toFixed(0)} MB/s (limit ${limit})`,
);
await server.stop();
