// The dashboard serving many browsers at once (not part of `npm test`). Run from the root:
//   node --expose-gc --import ./bench/register.mjs bench/dashboardClients.bench.ts [--quick]
//     [--clients=300] [--stalled=30] [--seconds=20] [--pods=2000] [--rate=500]
//     [--name-length=60] [--max-queued-kb=1024]
//   (or: node bench/run.mjs dashboardClients)
// One process runs a FakeKubeApiServer with `--pods` pods under 50 deployments, the dashboard
// (one feed: deployments, pods, replicasets) and `--clients` plain HTTP clients of `/events`
// (raw sockets that read and count bytes). `--stalled` of them stop reading after their first
// snapshot. The server's pods change at `--rate` updates a second for `--seconds`; every second
// the heap (after a full GC), the process CPU and the dashboard's client stats are sampled.
// At the end the stalled clients read again: each must be told what it skipped and get the
// latest state. Everything (API server, dashboard, clients) shares the one process and its CPU.
import type { V1Pod } from '@kubernetes/client-node';
import { connect, type Socket } from 'node:net';
import { startDashboard } from '../src/cli/dashboard/startDashboard.js';
import { deployments, pods } from '../src/objects/resources.js';
import { FakeKubeApiServer } from '../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../src/testing/marbles/builders.js';

const option = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const quick = process.argv.includes('--quick');
const CLIENTS = option('clients', 300);
const STALLED = option('stalled', 30);
const SECONDS = option('seconds', quick ? 8 : 20);
const PODS = option('pods', 2_000);
const RATE = option('rate', 500);
// Pod names of about this length (real ones run 30 to 60 characters): longer, more bytes a row.
const NAME_LENGTH = option('name-length', 60);
// The dashboard's maxQueuedBytes, in KB (its default is 1 024).
const MAX_QUEUED_KB = option('max-queued-kb', 1024);
const DEPLOYMENTS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

function heapUsed(): number {
  if (!globalThis.gc) throw new Error('run with node --expose-gc');
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

interface Client {
  socket: Socket;
  bytes: number;
  stalled: boolean;
  /** The last characters read, to find a message split across chunks. */
  tail: string;
  /** A `skipped` message came after it read again (stalled clients only). */
  toldSkipped: boolean;
  resumed: boolean;
  gotSnapshot: boolean;
}

function eventStream(port: number, stalled: boolean): Client {
  const socket = connect(port, '127.0.0.1');
  const client: Client = {
    socket,
    bytes: 0,
    stalled,
    tail: '',
    toldSkipped: false,
    resumed: false,
    gotSnapshot: false,
  };
  socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  socket.on('data', (chunk: Buffer) => {
    client.bytes += chunk.length;
    if (!client.gotSnapshot && chunk.includes('event: snapshot')) {
      client.gotSnapshot = true;
      if (stalled) socket.pause();
    }
    if (client.resumed && !client.toldSkipped) {
      const text = client.tail + chunk.toString('latin1');
      client.toldSkipped = /event: skipped\ndata: \{"messages":\d+\}/.test(text);
      client.tail = text.slice(-64);
    }
  });
  socket.on('error', () => {});
  return client;
}

const podOf = (i: number, restarts: number): V1Pod =>
  pod(`web-${i % DEPLOYMENTS}-${i}-`.padEnd(NAME_LENGTH, 'x'), '', {
    metadata: { labels: { app: `web-${i % DEPLOYMENTS}` } },
    spec: { nodeName: `node-${i % 20}`, containers: [{ name: 'main', image: 'nginx:1.27' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'main',
          image: 'nginx:1.27',
          imageID: '',
          ready: restarts % 2 === 0,
          restartCount: restarts,
          state: { running: {} },
        },
      ],
    },
  });

// A short history: the fake server's memory is not what is measured.
const server = await FakeKubeApiServer.start({ historySize: 2_000 });
for (let d = 0; d < DEPLOYMENTS; d++) {
  server.create(
    deployments,
    deployment(`web-${d}`, '', {
      spec: {
        replicas: PODS / DEPLOYMENTS,
        selector: { matchLabels: { app: `web-${d}` } },
        template: {
          metadata: { labels: { app: `web-${d}` } },
          spec: { containers: [{ name: 'main' }] },
        },
      },
    }),
  );
}
for (let i = 0; i < PODS; i++) server.create(pods, podOf(i, 0));
const dashboard = await startDashboard({
  cluster: server.kubeConfig(),
  clusterName: 'bench',
  server: server.url,
  port: 0,
  maxQueuedBytes: MAX_QUEUED_KB * 1024,
});
while (!dashboard.feed.status().synced) await sleep(50);
const port = Number(new URL(dashboard.url).port);
const heapBeforeClients = heapUsed();

const clients: Client[] = [];
for (let i = 0; i < CLIENTS; i++) clients.push(eventStream(port, i < STALLED));
while (clients.some((c) => !c.gotSnapshot) || dashboard.clients().connected < CLIENTS) {
  await sleep(20);
}
await sleep(2000); // every first snapshot written out
const heapWithClients = heapUsed();
const snapshotBytes = dashboard.feed.snapshotMessage().length;
console.log(
  `dashboard: ${PODS} pods, ${DEPLOYMENTS} deployments; ${CLIENTS} SSE clients (${STALLED} stop reading); ${RATE} pod updates/s for ${SECONDS} s`,
);
console.log(
  `snapshot ${mb(snapshotBytes)} MB; heap before clients ${mb(heapBeforeClients)} MB, with them ${mb(heapWithClients)} MB (${Math.round((heapWithClients - heapBeforeClients) / CLIENTS / 1024)} KB per client)`,
);

// Pod updates at RATE a second, in bursts every 20 ms.
let updates = 0;
const restarts = new Array<number>(PODS).fill(0);
const updater = setInterval(() => {
  for (let i = 0; i < RATE / 50; i++) {
    const n = Math.floor(Math.random() * PODS);
    server.update(pods, podOf(n, ++restarts[n]!));
    updates++;
  }
}, 20);

const samples: { heap: number; rss: number; cpu: number; behind: number; buffered: number }[] = [];
const readingBytesAtStart = clients.filter((c) => !c.stalled).map((c) => c.bytes);
let lastCpu = process.cpuUsage();
let lastTime = performance.now();
for (let second = 0; second < SECONDS; second++) {
  await sleep(1000);
  const cpu = process.cpuUsage(lastCpu);
  const wall = (performance.now() - lastTime) / 1000;
  lastCpu = process.cpuUsage();
  lastTime = performance.now();
  const stats = dashboard.clients();
  samples.push({
    heap: heapUsed(),
    rss: process.memoryUsage().rss,
    cpu: (cpu.user + cpu.system) / 1e6 / wall,
    behind: stats.behind,
    buffered: stats.bufferedBytes,
  });
}
clearInterval(updater);
const stats = dashboard.clients();
const reading = clients.filter((c) => !c.stalled);
const delivered = reading.map((c, i) => c.bytes - readingBytesAtStart[i]!);

console.log('| sample | heap MB | rss MB | CPU (cores) | clients behind | queued for clients MB |');
console.log('| --: | --: | --: | --: | --: | --: |');
samples.forEach((s, i) =>
  console.log(
    `| ${i + 1} | ${mb(s.heap)} | ${mb(s.rss)} | ${s.cpu.toFixed(2)} | ${s.behind} | ${mb(s.buffered)} |`,
  ),
);
const heaps = samples.map((s) => s.heap);
console.log(
  `updates applied: ${updates}; reading clients got ${mb(median(delivered))} MB each (median; min ${mb(Math.min(...delivered))}, max ${mb(Math.max(...delivered))})`,
);
console.log(
  `heap: first second ${mb(heaps[0]!)} MB, last ${mb(heaps[heaps.length - 1]!)} MB, peak ${mb(Math.max(...heaps))} MB; CPU median ${median(samples.map((s) => s.cpu)).toFixed(2)} cores`,
);
console.log(
  `clients: ${stats.behind} behind, ${stats.skippedMessages} messages skipped, ${stats.resyncs} resyncs, ${mb(stats.bufferedBytes)} MB queued for all of them`,
);

// The stalled clients read again: each is told what it skipped, then gets the latest state.
for (const client of clients.filter((c) => c.stalled)) {
  client.resumed = true;
  client.socket.resume();
}
const deadline = Date.now() + 30_000;
const caughtUp = () => clients.filter((c) => c.stalled && c.toldSkipped).length;
while (caughtUp() < STALLED && Date.now() < deadline) await sleep(50);
console.log(
  `after reading again: ${caughtUp()}/${STALLED} stalled clients told what they skipped and resynced; ${dashboard.clients().behind} still behind`,
);

for (const client of clients) client.socket.destroy();
await dashboard.close();
await server.stop();
