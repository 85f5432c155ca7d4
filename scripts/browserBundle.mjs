// The browser bundle of kube-rx, shared by the build (dist/browser.js), the size script, the
// example page and the specs that check the bundle and run it in Chromium.
//
// The transport is chosen by entry point, not at run time: a module `X.ts` of src/ that has a
// sibling `X.browser.ts` is replaced by it in this bundle: src/transport/platform.ts (fetch +
// ReadableStream instead of undici, no zlib) and src/client/connection/platform.ts (no KubeConfig adapter).
// Node runs the modules as they are.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The entry of the `browser` export condition. */
export const browserEntry = join(root, 'src/browser.ts');

/** Replaces `X.ts` of src/ by `X.browser.ts` where there is one. */
export const browserModules = {
  name: 'kube-rx-browser-modules',
  setup(builder) {
    const src = join(root, 'src');
    builder.onResolve({ filter: /^\.\.?\/.*\.js$/ }, ({ path, resolveDir }) => {
      if (!resolveDir.startsWith(src)) return undefined;
      const swapped = resolve(resolveDir, path.replace(/\.js$/, '.browser.ts'));
      return existsSync(swapped) ? { path: swapped } : undefined;
    });
  },
};

/**
 * Bundles for the browser platform (ES2022 modules) with the browser modules swapped in; rxjs
 * stays an import unless `bundleRxjs`. Writes nothing: returns esbuild's result (its
 * `outputFiles`, named after `outfile` when given, and its metafile).
 *
 * @example
 * const { outputFiles } = await bundleBrowser({ stdin: "export { fromWatch } from './src/browser.ts'" });
 */
export function bundleBrowser({
  entry = browserEntry,
  stdin,
  outfile,
  minify = false,
  bundleRxjs = false,
  sourcemap = false,
} = {}) {
  return build({
    ...(stdin
      ? { stdin: { contents: stdin, resolveDir: root, loader: 'ts', sourcefile: 'entry.ts' } }
      : { entryPoints: [entry] }),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify,
    sourcemap,
    metafile: true,
    logLevel: 'silent',
    external: bundleRxjs ? [] : ['rxjs', 'rxjs/*'],
    plugins: [browserModules],
    write: false,
    ...(outfile ? { outfile } : { outdir: join(root, 'dist') }),
  });
}

/** Node-only code that must not be in a browser bundle, in the bundle's inputs. */
const NODE_ONLY_INPUTS = [/node_modules\/@kubernetes\/client-node\//, /node_modules\/undici\//];

/** Traces of Node in bundled code: built-in imports, require(), Node's globals. */
const NODE_ONLY_CODE = [
  /\bfrom\s*["'](node:)?(zlib|util|http2?|https|net|tls|crypto|stream|fs|os|path|events|buffer|url)["']/,
  /\bimport\s*\(\s*["']node:/,
  /["']node:[a-z_/]+["']/,
  /\brequire\s*\(/,
  /\bBuffer\b/,
  /\bprocess\.(env|nextTick|versions|platform)\b/,
];

/**
 * What of Node a browser bundle holds: the Node-only inputs it bundled and the traces of Node
 * in its code; empty when it is clean.
 *
 * @example
 * const result = await bundleBrowser();
 * assert.deepEqual(nodeTraces(result), []);
 */
export function nodeTraces(result) {
  const found = [];
  for (const input of Object.keys(result.metafile.inputs)) {
    if (NODE_ONLY_INPUTS.some((pattern) => pattern.test(input))) found.push(`input ${input}`);
  }
  for (const file of result.outputFiles ?? []) {
    if (!file.path.endsWith('.js')) continue;
    for (const pattern of NODE_ONLY_CODE) {
      const match = pattern.exec(file.text);
      if (match) found.push(`code ${JSON.stringify(match[0])} in ${file.path}`);
    }
  }
  return found;
}

/**
 * Bundles like {@link bundleBrowser} and returns what of Node the result holds (see
 * {@link nodeTraces}), a build that fails to resolve a Node built-in included; empty when clean.
 *
 * @example
 * assert.deepEqual(await nodeTracesOfBundle(), []);
 */
export async function nodeTracesOfBundle(options = {}) {
  try {
    // Minified: comments (which may name Buffer or node:zlib) are gone, globals are not renamed.
    return nodeTraces(await bundleBrowser({ minify: true, ...options }));
  } catch (error) {
    if (!Array.isArray(error.errors)) throw error;
    return error.errors.map((e) => `${e.text}${e.location ? ` (${e.location.file})` : ''}`);
  }
}
