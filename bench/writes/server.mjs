// The writes benchmark's server, in a process of its own so that its CPU is not the clients':
// a FakeKubeApiServer from dist/ over TLS offering h2 and http/1.1 by ALPN (kube-apiserver's
// way), token `bench-token`, holding BENCH_OBJECTS ConfigMaps `bench-0`... in namespace `bench`.
// Tells its parent { url } once ready; ends when the parent disconnects.
import { configmaps } from '../../dist/index.js';
import { FakeKubeApiServer } from '../../dist/testing/index.js';

const objects = Number(process.env.BENCH_OBJECTS ?? 64);
const server = await FakeKubeApiServer.start({
  tls: true,
  token: 'bench-token',
  historySize: 0,
  bookmarkIntervalMs: 0,
  recordLimit: 0,
});
for (let i = 0; i < objects; i++) {
  server.create(configmaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `bench-${i}`, namespace: 'bench', labels: { app: 'bench' } },
    data: { n: '0', payload: 'x'.repeat(512) },
  });
}
process.send({ url: server.url });
process.on('disconnect', () => void server.stop().then(() => process.exit(0)));
