import { describe, expect, it } from '@jest/globals';
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// prom-client is an optional peer dependency: only the kube-rx/metrics entry may load it. This
// walks the static imports (type-only ones too: declarations would need the package) from
// each entry and lists the packages reached.
const root = fileURLToPath(new URL('../..', import.meta.url));

function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}/index.ts`]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function packagesReached(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) packages.add(fileName);
      else {
        const target = resolveImport(file, fileName);
        if (target !== undefined) visit(target);
      }
    }
  };
  visit(resolve(root, entry));
  return packages;
}

describe('kube-rx without prom-client', () => {
  it.each(['src/index.ts', 'src/browser.ts', 'src/testing/index.ts'])(
    '%s reaches nothing of prom-client',
    (entry) => {
      const reached = [...packagesReached(entry)];
      expect(reached).toContain('rxjs'); // the walk does reach packages
      expect(reached.filter((p) => p.startsWith('prom-client'))).toEqual([]);
    },
  );

  it('kube-rx/metrics is where it is loaded', () => {
    expect(packagesReached('src/metrics.ts')).toContain('prom-client');
  });
});
