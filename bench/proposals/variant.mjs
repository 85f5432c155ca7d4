// Builds kube-rx with proposed patches applied, to measure them against the current code:
//   node bench/proposals/variant.mjs <out dir> [patch ...] [--spec[=<path filter>...]]
//   node bench/watch.bench.mjs --alt=<out dir>/dist --alt-label=<name>
// With --spec, the project's specs (jest, as `npm run spec` runs them) then run against the
// patched sources, optionally only those matching the given path filters (comma-separated).
// Copies src/ and the tsconfigs into <out dir> (emptied first), links node_modules, applies
// each patch with `patch -p1`, and compiles with tsconfig.build.json. Nothing in the checkout
// changes.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const specArg = process.argv.slice(2).find((arg) => arg.startsWith('--spec'));
const [outArg, ...patches] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (!outArg) {
  console.error('usage: variant.mjs <out dir> [patch ...]');
  process.exit(2);
}
const out = resolve(outArg);
if (out === root || out.startsWith(`${root}src`)) throw new Error(`refusing to build into ${out}`);
if (existsSync(out)) rmSync(out, { recursive: true });
mkdirSync(out, { recursive: true });
cpSync(resolve(root, 'src'), resolve(out, 'src'), { recursive: true });
if (specArg) {
  // What jest.config.js lists as roots (a root that does not exist yet is made empty), and bench/,
  // which spec/chaos.spec.ts imports (its results left out).
  for (const dir of ['spec', 'examples', 'bench']) {
    if (existsSync(resolve(root, dir))) {
      cpSync(resolve(root, dir), resolve(out, dir), {
        recursive: true,
        filter: (path) => !path.startsWith(resolve(root, 'bench/results')),
      });
    } else mkdirSync(resolve(out, dir));
  }
}
for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'jest.config.js']) {
  cpSync(resolve(root, file), resolve(out, file));
}
symlinkSync(resolve(root, 'node_modules'), resolve(out, 'node_modules'), 'dir');
for (const patch of patches) {
  execFileSync('patch', ['-p1', '-d', out], {
    input: readFileSync(resolve(patch)),
    stdio: ['pipe', 'inherit', 'inherit'],
  });
}
execFileSync(resolve(root, 'node_modules/.bin/tsc'), ['-p', resolve(out, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (specArg) {
  const filters = specArg.includes('=') ? specArg.split('=')[1].split(',') : [];
  execFileSync(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      resolve(root, 'node_modules/jest/bin/jest.js'),
      ...filters,
    ],
    { cwd: out, stdio: 'inherit' },
  );
}
console.log(resolve(out, 'dist'));
