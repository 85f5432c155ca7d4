// The API server of bench/sharding.bench.ts in a process of its own (`--server=process`, the
// default), as kube-apiserver is never in the controllers' process: a FakeKubeApiServer on
// loopback with `--objects` ConfigMaps in namespace `app`. It sends its kubeconfig to the parent
// over IPC and stops when the parent says `stop` or goes away.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { configmaps } from '../src/index.js';
import { FakeKubeApiServer } from '../src/testing/index.js';

const objects = Number(
  process.argv.find((arg) => arg.startsWith('--objects='))?.split('=')[1] ?? 2000,
);
// `--http2`: TLS with HTTP/2 offered (ALPN), as kube-apiserver serves; else plain HTTP/1.1.
const h2 = process.argv.includes('--http2');
const server = await FakeKubeApiServer.start(h2 ? { tls: true } : { http2: false });
for (let i = 0; i < objects; i++) {
  server.create(configmaps, { metadata: { name: `cm-${i}`, namespace: 'app' } });
}
const stop = async () => {
  await server.stop();
  process.exit(0);
};
// `cpu`: answered with `{ cpuMs }`. `{ profile: 'start' }` / `{ profile: 'stop', to }`: a CPU profile of this process between the
// two (the bench's `--profile-kill`), answered with `{ profiled: to }` once written.
let session: Session | undefined;
process.on('message', (message: 'stop' | 'cpu' | { profile: 'start' | 'stop'; to?: string }) => {
  if (message === 'stop') void stop();
  else if (message === 'cpu') {
    // This process's CPU time so far (ms): the bench's figures of the server's work per phase.
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMs: (user + system) / 1000 });
  } else if (message.profile === 'start') {
    session = new Session();
    session.connect();
    // A sample every 100 µs (the default 1 ms leaves a few hundred samples in a bench's window).
    void session
      .post('Profiler.enable')
      .then(() => session!.post('Profiler.setSamplingInterval', { interval: 100 }))
      .then(() => session!.post('Profiler.start'));
  } else if (session) {
    const ending = session;
    session = undefined;
    void ending.post('Profiler.stop').then(({ profile }) => {
      writeFileSync(message.to!, JSON.stringify(profile));
      ending.disconnect();
      process.send!({ profiled: message.to });
    });
  }
});
process.on('disconnect', () => void stop());
process.send!({ kubeconfig: server.kubeConfig().exportConfig() });
