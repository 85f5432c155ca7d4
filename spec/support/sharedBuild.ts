import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One kind of build that spec files share (the command, the package). */
export interface SharedBuild {
  /** Where the builds live: one folder per fingerprint of their inputs. */
  builds: string;
  /** The fingerprint of what the build reads. */
  fingerprint: string;
  /** The file, inside a finished build's folder, that says it is complete. */
  done: string;
  /** Builds into `staging` (a fresh folder); throws when the build failed. */
  build: (staging: string) => Promise<void>;
  /** What is built, for the give-up message. */
  what: string;
  /** How long another spec file's build may take before this one gives up and takes over. */
  timeoutMs: number;
}

/**
 * Builds once per version of the inputs, into `builds/<fingerprint>/`: spec files running in
 * parallel share one build (a lock directory: mkdir is atomic), a build is staged and renamed
 * into place whole, and builds of older sources go after ten minutes. Returns the build's folder.
 */
export async function sharedBuild(config: SharedBuild): Promise<string> {
  const { builds, fingerprint, done, build, what, timeoutMs } = config;
  const dir = join(builds, fingerprint);
  mkdirSync(builds, { recursive: true });
  const lock = `${dir}.lock`;
  for (const giveUp = Date.now() + timeoutMs; !existsSync(join(dir, done));) {
    if (tryLock(lock, timeoutMs)) {
      try {
        if (!existsSync(join(dir, done))) await stageAndPlace(dir, build);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      removeStaleBuilds(builds, dir);
    } else if (Date.now() > giveUp) {
      throw new Error(`gave up waiting for another build of ${what} (${lock})`);
    } else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return dir;
}

async function stageAndPlace(dir: string, build: (staging: string) => Promise<void>) {
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    await build(staging);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  try {
    renameSync(staging, dir);
  } catch {
    // Another spec file finished the same build first: use that one.
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Takes the lock; a lock older than `staleMs` is from a build that died, and goes. */
function tryLock(lock: string, staleMs: number): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > staleMs)
        rmSync(lock, { recursive: true, force: true });
    } catch {
      // Released meanwhile.
    }
    return false;
  }
}

/** Builds of older sources, left for a few minutes in case a parallel spec file still uses one. */
function removeStaleBuilds(builds: string, current: string): void {
  const tooOld = Date.now() - 10 * 60_000;
  for (const name of readdirSync(builds)) {
    const path = join(builds, name);
    if (path === current || name.endsWith('.lock')) continue;
    try {
      if (statSync(path).mtimeMs < tooOld) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by someone else meanwhile.
    }
  }
}

/**
 * A hash of the path, size and mtime of each file given and of every file under each folder
 * given (those `include` accepts).
 */
export function fingerprintOf(paths: string[], include: (name: string) => boolean = () => true) {
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
      else if (include(entry.name)) add(path);
    }
  };
  for (const path of paths) (statSync(path).isDirectory() ? walk : add)(path);
  return hash.digest('hex').slice(0, 16);
}
