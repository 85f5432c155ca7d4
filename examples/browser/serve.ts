/**
 * The browser example, served:
 *
 *   npm run example:browser [-- --port 8080]
 *
 * starts a demo cluster (a FakeKubeApiServer with `cors: true` and a simulation changing its
 * pods, dropping its watches and expiring its history now and then) and a static server for
 * examples/browser/index.html and page.ts bundled from the browser entry (rxjs included), and
 * prints the page's URL. Ctrl-C stops both. Nothing in the demo cluster is real.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ClusterSimulator } from '../../src/cli/demo/ClusterSimulator.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { bundleBrowser, root } from '../../scripts/browserBundle.mjs';
import { servePage } from './servePage.js';

/** The running example. */
export interface BrowserExample {
  /** The page to open (with the demo API server in its query). */
  url: string;
  api: FakeKubeApiServer;
  stop(): Promise<void>;
}

/**
 * Bundles the page and starts the demo API server and the page server.
 *
 * @example
 * const example = await startBrowserExample({ faultEveryMs: 0 });
 * console.log(example.url);
 * await example.stop();
 */
export async function startBrowserExample({
  port = 0,
  tickMs = 500,
  faultEveryMs = 20_000,
}: { port?: number; tickMs?: number; faultEveryMs?: number } = {}): Promise<BrowserExample> {
  const bundle = await bundleBrowser({
    entry: join(root, 'examples/browser/page.ts'),
    bundleRxjs: true,
  });
  const script = bundle.outputFiles.find((file) => file.path.endsWith('.js'))!.text;
  const html = readFileSync(join(root, 'examples/browser/index.html'), 'utf8');
  // No token: a page talks to a same-origin proxy (kubectl proxy) that adds the credentials.
  const api = await FakeKubeApiServer.start({ cors: true, token: null, bookmarkIntervalMs: 5000 });
  const simulator = new ClusterSimulator(api);
  simulator.seed();
  let faults = 0;
  const timers = [setInterval(() => simulator.tick(), tickMs)];
  if (faultEveryMs > 0) {
    timers.push(
      setInterval(
        () => (faults++ % 2 === 0 ? api.disconnectAll() : api.expireHistory()),
        faultEveryMs,
      ),
    );
  }
  const page = await servePage({ html, script, port });
  return {
    url: `${page.url}?server=${encodeURIComponent(api.url)}`,
    api,
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await page.close();
      await api.stop();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const portArg = process.argv.indexOf('--port');
  const example = await startBrowserExample({
    port: portArg === -1 ? 0 : Number(process.argv[portArg + 1]),
  });
  console.log(`demo cluster (simulated, not real): ${example.api.url}`);
  console.log(`open ${example.url}`);
  process.once('SIGINT', () => void example.stop().then(() => process.exit(0)));
}
