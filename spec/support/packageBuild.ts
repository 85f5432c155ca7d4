import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { bundleBrowser } from '../../scripts/browserBundle.mjs';

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
  const dir = join(BUILDS, fingerprint());
  const done = join(dir, 'dist', 'browser.js');
  mkdirSync(BUILDS, { recursive: true });
  const lock = `${dir}.lock`;
  for (const giveUp = Date.now() + 180_000; !existsSync(done);) {
    if (tryLock(lock)) {
      try {
        if (!existsSync(done)) await build(dir);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    } else if (Date.now() > giveUp) {
      throw new Error(`gave up waiting for another build of the package (${lock})`);
    } else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return dir;
}

/** Takes the lock (a directory: mkdir is atomic); a lock older than three minutes is stale. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > 180_000)
        rmSync(lock, { recursive: true, force: true });
    } catch {
      // Released meanwhile.
    }
    return false;
  }
}

async function build(dir: string): Promise<void> {
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  const dist = join(staging, 'dist');
  mkdirSync(dist, { recursive: true });
  try {
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
    try {
      renameSync(staging, dir);
    } catch {
      // Another spec file finished the same build first: use that one.
      rmSync(staging, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  removeStaleBuilds(dir);
}

/** What the build reads: the sources, package.json, the build's configuration and scripts. */
function fingerprint(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    const stat = statSync(path);
    hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`);
  };
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else add(path);
    }
  };
  walk(join(ROOT, 'src'));
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json'])
    add(join(ROOT, file));
  add(join(ROOT, 'scripts', 'browserBundle.mjs'));
  return hash.digest('hex').slice(0, 16);
}

/** Builds of older sources, left for a few minutes in case a parallel spec file still uses one. */
function removeStaleBuilds(current: string): void {
  const tooOld = Date.now() - 10 * 60_000;
  for (const name of readdirSync(BUILDS)) {
    const path = join(BUILDS, name);
    if (path === current || name.endsWith('.lock')) continue;
    try {
      if (statSync(path).mtimeMs < tooOld) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by someone else meanwhile.
    }
  }
}
