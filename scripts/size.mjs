// Prints the size of the browser bundle of fromWatch + resilientWatch + toStore (minified, then
// gzipped; rxjs excluded, as a page has its own) and fails above the budget (25 KB). The figure
// is kept in the README ("In the browser"). Run with `npm run size`.
import { gzipSync } from 'node:zlib';
import { bundleBrowser, nodeTraces } from './browserBundle.mjs';

const BUDGET_BYTES = 25 * 1024;

const result = await bundleBrowser({
  stdin: "export { fromWatch, resilientWatch, toStore } from './src/browser.ts';",
  minify: true,
});
const code = result.outputFiles.find((file) => file.path.endsWith('.js')).contents;
const gzipped = gzipSync(code, { level: 9 }).length;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(
  `fromWatch + resilientWatch + toStore, browser bundle without rxjs: ${kb(code.length)} minified, ${kb(gzipped)} minified + gzipped (budget ${kb(BUDGET_BYTES)})`,
);
const traces = nodeTraces(result);
if (traces.length > 0) {
  console.error(`the bundle holds Node code:\n  ${traces.join('\n  ')}`);
  process.exit(1);
}
if (gzipped > BUDGET_BYTES) {
  console.error(`over budget by ${kb(gzipped - BUDGET_BYTES)}`);
  process.exit(1);
}
