import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version in kube-rx's package.json, found by walking up from `moduleUrl` (the same from
 * `src/cli` and `dist/cli`); `unknown` if it cannot be found.
 *
 * @example
 * packageVersion(import.meta.url); // '0.1.0'
 */
export function packageVersion(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'kube-rx' && pkg.version) return pkg.version;
      } catch {
        // Not ours or unreadable: keep walking up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
