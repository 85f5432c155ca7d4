import { jest } from '@jest/globals';
import type { ClusterConnection } from '../../../src/types.js';

// The browser entry's writes: every method over the fetch transport (swapped in as the browser
// bundle swaps it), to a plain-HTTP server as a page's same-origin proxy would be.
jest.unstable_mockModule(
  '../../../src/transport/platform.js',
  () => import('../../../src/transport/platform.browser.js'),
);
jest.unstable_mockModule(
  '../../../src/client/connection/platform.js',
  () => import('../../../src/client/connection/platform.browser.js'),
);
const { FakeKubeApiServer } =
  await import('../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js');
const { describeResourceApi } = await import('./resourceApiSuite.js');

describeResourceApi('fetch (the browser entry)', {
  start: () => FakeKubeApiServer.start({ token: 't', bookmarkIntervalMs: 0 }),
  cluster: (server): ClusterConnection => ({
    resolve: async () => ({ server: server.url, headers: { Authorization: 'Bearer t' } }),
  }),
  httpVersion: '1.1',
  fetch: true,
});
