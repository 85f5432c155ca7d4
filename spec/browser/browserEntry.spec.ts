import { describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { bundleBrowser, nodeTracesOfBundle } from '../../scripts/browserBundle.mjs';
import * as browserEntry from '../../src/browser.js';
import * as nodeEntry from '../../src/index.js';
import * as browserClientPlatform from '../../src/client/connection/platform.browser.js';
import * as nodeClientPlatform from '../../src/client/connection/platform.js';
import * as browserPlatform from '../../src/transport/platform.browser.js';
import * as nodePlatform from '../../src/transport/platform.js';

// The browser entry holds nothing of Node, exports what the Node entry does (but the KubeConfig
// adapter), and stays small.

/** Exports of the Node entry that need Node (client-node at run time). */
const NODE_ONLY_EXPORTS = ['kubeConfigConnection'];

describe('the browser entry', () => {
  it('bundles for the browser platform without a Node built-in, client-node, undici or Node globals', async () => {
    expect(await nodeTracesOfBundle()).toEqual([]);
  }, 30_000);

  it('is told apart from the Node entry, which the same check refuses', async () => {
    const traces = await nodeTracesOfBundle({ entry: 'src/index.ts' });
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.join('\n')).toMatch(/node:|client-node|undici/);
  }, 30_000);

  it('exports what the Node entry exports, but the KubeConfig adapter', () => {
    const expected = Object.keys(nodeEntry)
      .filter((name) => !NODE_ONLY_EXPORTS.includes(name))
      .sort();
    expect(Object.keys(browserEntry).sort()).toEqual(expected);
  });

  it('swaps in platforms (transport and client) with the same exports and types as the Node ones', () => {
    // Type-checked: each browser platform can stand wherever the Node one is used.
    const swapped: typeof nodePlatform = browserPlatform;
    expect(Object.keys(swapped).sort()).toEqual(Object.keys(nodePlatform).sort());
    const swappedClient: typeof nodeClientPlatform = browserClientPlatform;
    expect(Object.keys(swappedClient).sort()).toEqual(Object.keys(nodeClientPlatform).sort());
  });

  it('refuses a KubeConfig with a message saying what to pass', async () => {
    await expect(browserClientPlatform.resolveKubeConfig({} as never)).rejects.toThrow(
      /ClusterConnection/,
    );
  });

  it('keeps fromWatch + resilientWatch + toStore at most 25 KB minified and gzipped (rxjs excluded)', async () => {
    const result = await bundleBrowser({
      stdin: "export { fromWatch, resilientWatch, toStore } from './src/browser.ts';",
      minify: true,
    });
    const code = result.outputFiles.find((file) => file.path.endsWith('.js'))!.contents;
    expect(gzipSync(code, { level: 9 }).length).toBeLessThanOrEqual(25 * 1024);
    // rxjs is the page's own: imported, not bundled.
    expect(Object.keys(result.metafile.inputs).some((input) => input.includes('rxjs'))).toBe(false);
  }, 30_000);
});
