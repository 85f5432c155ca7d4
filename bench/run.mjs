// Runs every benchmark in bench/ one after the other (`npm run bench` builds dist/ first):
//   node bench/run.mjs [filter...] [--quick] [bench options such as --rounds=3 --events=50000]
// A benchmark is a file named bench/*.bench.mjs (run with node) or bench/*.bench.ts (run through
// bench/register.mjs, with --expose-gc). Words without `--` keep only the files whose name
// contains one of them (`node bench/run.mjs watch`); `--` options go to every benchmark.
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { URL, fileURLToPath } from 'node:url';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const argv = process.argv.slice(2);
const filters = argv.filter((arg) => !arg.startsWith('--'));
const options = argv.filter((arg) => arg.startsWith('--'));

const files = (await readdir(benchDir))
  .filter((file) => /\.bench\.(mjs|ts)$/.test(file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}`);
  process.exit(1);
}

let failed = 0;
for (const file of files) {
  const nodeArgs = file.endsWith('.ts')
    ? ['--expose-gc', '--import', './bench/register.mjs', `bench/${file}`]
    : [`bench/${file}`];
  console.log(`\n=== ${file} ===`);
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, ...options], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: 'inherit',
    });
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  if (code !== 0) {
    console.error(`${file} failed (exit ${code})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
