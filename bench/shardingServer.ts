// The API server of bench/sharding.bench.ts in a process of its own (`--server=process`, the
// default), as kube-apiserver is never in the controllers' process: a FakeKubeApiServer on
// loopback with `--objects` ConfigMaps in namespace `app`. It sends its kubeconfig to the parent
// over IPC and stops when the parent says `stop` or goes away.
import { configmaps } from '../src/index.js';
import { FakeKubeApiServer } from '../src/testing/index.js';

const objects = Number(
  process.argv.find((arg) => arg.startsWith('--objects='))?.split('=')[1] ?? 2000,
);
const server = await FakeKubeApiServer.start({ http2: false });
for (let i = 0; i < objects; i++) {
  server.create(configmaps, { metadata: { name: `cm-${i}`, namespace: 'app' } });
}
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.on('disconnect', () => void stop());
process.send!({ kubeconfig: server.kubeConfig().exportConfig() });
