// The server of bench/h2Writes.ts, in a process of its own: a FakeKubeApiServer over TLS offering
// h2 (and http/1.1) by ALPN with OBJECTS ConfigMaps `cm-i` in namespace `app`. Sends its
// kubeconfig over IPC; answers `stats` with its CPU time so far and the most requests it has had
// in flight at once since the last `stats` (from a request's arrival to its response's finish).
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { configmaps } from '../src/index.js';
import { FakeKubeApiServer } from '../src/testing/index.js';

const start = async (tls: boolean, maxConcurrentStreams?: number) => {
  const server = await FakeKubeApiServer.start({
    ...(tls ? { tls: true } : { http2: false }),
    ...(maxConcurrentStreams !== undefined && { maxConcurrentStreams }),
    historySize: 0,
    bookmarkIntervalMs: 0,
    recordLimit: 0,
  });
  for (let i = 0; i < Number(process.env.OBJECTS ?? 1000); i++) {
    server.create(configmaps, { metadata: { name: `cm-${i}`, namespace: 'app' } });
  }
  // The listener's node server, reached past its privacy: a diagnostic of this bench only.
  const listening = (server as unknown as { listener: { server: Server } }).listener.server;
  listening.prependListener('request', counted);
  return server;
};
let inFlight = 0;
let maxInFlight = 0;
const counted = (_req: unknown, res: NodeJS.EventEmitter) => {
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  let done = false;
  const over = () => {
    if (!done) inFlight--;
    done = true;
  };
  res.once('finish', over);
  res.once('close', over);
};
const server = await start(true);
// The same objects on plain HTTP/1.1 (the sharding bench's mode without --http2).
const plain = await start(false);
// TLS with HTTP/2 allowing 16 streams per session: 64 writes take 4 sessions (the bench's h2x16).
const limited = await start(true, 16);
process.on('message', (message) => {
  if (message !== 'stats') return;
  const { user, system } = process.cpuUsage();
  // The main thread's time on a CPU and waiting for one (ns), from the scheduler's counters.
  const [runNs, waitNs] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8')
    .split(' ')
    .map(Number);
  process.send!({ cpuMs: (user + system) / 1000, maxInFlight, runNs, waitNs });
  maxInFlight = inFlight;
});
process.on(
  'disconnect',
  () => void Promise.all([server.stop(), plain.stop(), limited.stop()]).then(() => process.exit(0)),
);
process.send!({
  kubeconfig: server.kubeConfig().exportConfig(),
  plain: plain.kubeConfig().exportConfig(),
  limited: limited.kubeConfig().exportConfig(),
});
