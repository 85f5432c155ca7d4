// A FakeKubeApiServer (TLS, HTTP/2 by ALPN) in its own process, changing a pod every 20 ms, so
// a spec can block its own main thread while the server goes on streaming. Prints one line,
// `KUBECONFIG=<path>`, once it serves; stops when its parent closes its stdin.
import { join } from 'node:path';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';

const dir = process.argv[2];
const server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
let n = 0;
server.create(pods, { metadata: { name: 'busy', namespace: 'default', labels: { n: '0' } } });
const timer = setInterval(() => {
  const current = server.get(pods, 'default', 'busy')!;
  server.update(pods, {
    ...current,
    metadata: { ...current.metadata, labels: { n: String(++n) } },
  });
}, 20);
const path = await server.writeKubeConfig(join(dir, 'kubeconfig'));
console.log(`KUBECONFIG=${path}`);
process.stdin.resume();
process.stdin.on('end', async () => {
  clearInterval(timer);
  await server.stop();
  process.exit(0);
});
