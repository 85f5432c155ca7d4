import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
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

const ROOT = resolve(process.cwd());
const BUILDS = join(ROOT, 'artifacts', 'cli-build');

/**
 * Compiles the `kube-rx` command (src/cli/main.ts and what it imports, nothing else) into
 * artifacts/cli-build/<fingerprint of src>/, once per version of the sources: spec files running
 * in parallel share one build, and an unchanged tree is not rebuilt. Node resolves the packages
 * from the repository's node_modules, up the tree. Returns the path of the built main.js.
 *
 * Type errors do not stop the build (`npm run typecheck` reports them); a build that emits no
 * main.js throws with tsc's output.
 */
export async function buildCli(): Promise<string> {
  const dir = join(BUILDS, fingerprint(join(ROOT, 'src')));
  const main = join(dir, 'cli', 'main.js');
  mkdirSync(BUILDS, { recursive: true });
  // One build at a time: a spec file that finds another one building waits for its result
  // rather than running a second tsc on a busy machine.
  const lock = `${dir}.lock`;
  for (const giveUp = Date.now() + 120_000; !existsSync(main);) {
    if (tryLock(lock)) {
      try {
        if (!existsSync(main)) await compile(dir);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    } else if (Date.now() > giveUp) {
      throw new Error(`gave up waiting for another build of the kube-rx command (${lock})`);
    } else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return main;
}

/** Takes the lock (a directory: mkdir is atomic); a lock older than two minutes is stale. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > 120_000)
        rmSync(lock, { recursive: true, force: true });
    } catch {
      // Released meanwhile.
    }
    return false;
  }
}

async function compile(dir: string): Promise<void> {
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  const tsconfig = join(staging, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.build.json'),
      compilerOptions: {
        rootDir: join(ROOT, 'src'),
        outDir: staging,
        declaration: false,
        sourceMap: false,
        incremental: false,
      },
      include: [],
      files: [join(ROOT, 'src', 'cli', 'main.ts')],
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const output = await promisify(execFile)(process.execPath, [tsc, '-p', tsconfig], {
    cwd: ROOT,
  }).then(
    () => '',
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
  if (!existsSync(join(staging, 'cli', 'main.js'))) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`building the kube-rx command failed:\n${output}`);
  }
  try {
    renameSync(staging, dir);
  } catch {
    // Another spec file finished the same build first: use that one.
    rmSync(staging, { recursive: true, force: true });
  }
  removeStaleBuilds(dir);
}

/** A hash of the path, size and mtime of every file under `dir`. */
function fingerprint(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const stat = statSync(path);
        hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`);
      }
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 16);
}

/** Builds of older sources, left for a few minutes in case a parallel spec file still runs one. */
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
