import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { describeResourceApi } from './resourceApiSuite.js';

// Every method over undici HTTP/1.1 and over node:http2, both to a TLS server that offers h2
// through ALPN as kube-apiserver does (`http2: false` forces HTTP/1.1).
describeResourceApi('HTTP/1.1 (TLS, http2: false)', {
  start: () => FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 }),
  cluster: (server) => kubeConfigConnection(server.kubeConfig(), { http2: false }),
  httpVersion: '1.1',
});

describeResourceApi('HTTP/2 (TLS, ALPN h2)', {
  start: () => FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 }),
  cluster: (server) => server.kubeConfig(),
  httpVersion: '2.0',
});
