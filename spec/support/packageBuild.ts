import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { bundleBrowser } from '../../scripts/browserBundle.mjs';
import { fingerprintOf, sharedBuild } from './sharedBuild.js';

const ROOT = resolve(process.cwd());
const BUILDS = join(ROOT, 'artifacts', 'package-build');

/**
 * Builds the package as `npm run build` does (tsc with tsconfig.build.json, then the browser
 * bundle) into artifacts/package-build/<fingerprint>/, beside a copy of package.json: a package
 * directory that a consumer's node_modules can point at. Once per version of the sources; spec
 * files running in parallel share one build. The repository's own dist/ is left alone (`npm test`
 * does not build it, and a developer's may be stale). Fails on any type error of the build, as
 * `npm run build` would.
 */
export async function buildPackage(): Promise<string> {
  return sharedBuild({
    builds: BUILDS,
    fingerprint: fingerprintOf([
      join(ROOT, 'src'),
      ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((file) => join(ROOT, file)),
      join(ROOT, 'scripts', 'browserBundle.mjs'),
    ]),
    done: join('dist', 'browser.js'),
    build,
    what: 'the package',
    timeoutMs: 180_000,
  });
}

async function build(staging: string): Promise<void> {
  const dist = join(staging, 'dist');
  mkdirSync(dist, { recursive: true });
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await promisify(execFile)(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--outDir', dist, '--incremental', 'false'],
    { cwd: ROOT },
  ).catch((error: { stdout?: string; message: string }) => {
    throw new Error(`the package's build (tsc) failed:\n${error.stdout || error.message}`);
  });
  const outfile = join(dist, 'browser.js');
  const result = await bundleBrowser({ outfile });
  for (const file of result.outputFiles) {
    if (file.path !== outfile) throw new Error(`unexpected bundle output ${file.path}`);
  }
  writeFileSync(outfile, result.outputFiles[0]!.contents);
  copyFileSync(join(ROOT, 'package.json'), join(staging, 'package.json'));
}
