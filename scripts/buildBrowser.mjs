// Writes dist/browser.js, the module of the `browser` export condition: src/browser.ts bundled
// with the browser platform swapped in (scripts/browserBundle.mjs), rxjs left as an import so
// that the page's own rxjs is used. Run by `npm run build` after tsc (whose dist/browser.d.ts
// types it); fails, writing nothing, when the bundle holds anything of Node. No source map: it
// would point at src/, which the package does not ship.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleBrowser, nodeTraces, root } from './browserBundle.mjs';

const outfile = join(root, 'dist/browser.js');
const result = await bundleBrowser({ outfile });
const traces = nodeTraces(result);
if (traces.length > 0) {
  console.error(`dist/browser.js would hold Node code:\n  ${traces.join('\n  ')}`);
  process.exit(1);
}
mkdirSync(dirname(outfile), { recursive: true });
for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
console.log(`wrote ${outfile}`);
