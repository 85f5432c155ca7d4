import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/**
 * A fresh directory `kube-rx-<name>-XXXXXX` in the temporary directory, removed by
 * {@link removeTempDirs}. The run fails if one is left behind (spec/support/tempDirTeardown.mjs).
 */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kube-rx-${name}-`));
  made.add(dir);
  return dir;
}

/**
 * Removes every directory {@link tempDir} made in this spec file so far. Called from an
 * `afterAll` declared after the hooks that stop the processes using them (jest runs `afterAll`
 * hooks in the order they are declared), so that no process writes into a directory being
 * removed.
 */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
