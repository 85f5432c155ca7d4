import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The script is plain JavaScript run by node; imported by URL so tsc does not type it.
const scriptUrl = pathToFileURL(join(process.cwd(), 'scripts/checkImports.mjs')).href;
const { findImportProblems } = (await import(scriptUrl)) as {
  findImportProblems: (root: string) => string[];
};

/** The problems the check finds in a project made of `files` (path -> source). */
function check(files: Record<string, string>): string[] {
  const root = mkdtempSync(join(tmpdir(), 'kube-rx-check-imports-'));
  try {
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    return findImportProblems(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('scripts/checkImports.mjs', () => {
  it('passes a project without cycles or imports from spec/', () => {
    expect(
      check({
        'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
        'src/b.ts': 'export const b = 1;\n',
        'spec/a.spec.ts': "import { a } from '../src/a.js';\n",
      }),
    ).toEqual([]);
  });

  it('fails on a cycle, type-only imports included, naming its modules', () => {
    expect(
      check({
        'src/a.ts': "import type { B } from './b/b.js';\nexport type A = B;\n",
        'src/b/b.ts':
          "import { c } from '../c.js';\nexport type B = number;\nexport const d = c;\n",
        'src/c.ts': "import type { A } from './a.js';\nexport const c: A | 1 = 1;\n",
        'src/d.ts': "import { c } from './c.js';\nexport const d = c;\n",
      }),
    ).toEqual(['import cycle: src/a.ts <-> src/b/b.ts <-> src/c.ts']);
  });

  it('fails on src/, bench/ or examples/ importing from spec/', () => {
    expect(
      check({
        'src/a.ts': 'export const a = 1;\n',
        'bench/run.ts': "import { helper } from '../spec/support/helper.js';\nhelper();\n",
        'spec/support/helper.ts': 'export function helper() {}\n',
      }),
    ).toEqual(['bench/run.ts imports spec/support/helper.ts from spec/']);
  });

  it('fails on a public module that no spec of the mirrored folder imports (types and barrels aside)', () => {
    expect(
      check({
        'src/index.ts':
          "export { a } from './ops/a.js';\nexport type { B } from './ops/b.js';\nexport * from './ops/index.js';\n",
        'src/ops/a.ts': 'export const a = 1;\n',
        'src/ops/b.ts': 'export type B = 1;\n',
        'src/ops/index.ts': "export { c } from './c.js';\n",
        'src/ops/c.ts': 'export const c = 1;\n',
        'spec/ops/a.spec.ts': "import { a } from '../../src/ops/a.js';\n",
        // In the wrong folder: it does not count.
        'spec/c.spec.ts': "import { c } from '../src/ops/c.js';\n",
      }),
    ).toEqual(['src/ops/c.ts is public and no spec in spec/ops/ imports it']);
  });

  it('fails on an import from a floor above (DESIGN "Layout"), passes one from below', () => {
    expect(
      check({
        'src/objects/key.ts':
          "import { fromWatch } from '../sources/fromWatch.js';\nexport const k = fromWatch;\n",
        'src/sources/fromWatch.ts':
          "import { path } from '../objects/path.js';\nexport const fromWatch = path;\n",
        'src/objects/path.ts': 'export const path = 1;\n',
        'src/operators/store/tree.ts':
          "import { toStore } from '../toStore.js';\nexport const t = toStore;\n",
        'src/operators/toStore.ts': 'export const toStore = 1;\n',
      }),
    ).toEqual([
      'src/objects/key.ts imports src/sources/fromWatch.ts, a floor above it',
      'src/operators/store/tree.ts imports src/operators/toStore.ts, a floor above it',
    ]);
  });

  it("fails on an import of a folder's internal/ from outside that folder", () => {
    expect(
      check({
        'src/shapes/internal/table.ts': 'export const table = 1;\n',
        'src/shapes/share.ts':
          "import { table } from './internal/table.js';\nexport const s = table;\n",
        'src/operators/x.ts':
          "import { table } from '../shapes/internal/table.js';\nexport const x = table;\n",
      }),
    ).toEqual(['src/operators/x.ts imports src/shapes/internal/table.ts from outside src/shapes/']);
  });

  it('fails on the command, the test kit or a bench using machinery instead of a public entry', () => {
    expect(
      check({
        'src/index.ts': "export { toStore } from './operators/toStore.js';\n",
        'src/operators/toStore.ts': 'export const toStore = 1;\n',
        'spec/operators/toStore.spec.ts':
          "import { toStore } from '../../src/operators/toStore.js';\n",
        'src/cli/ok.ts': "import { toStore } from '../index.js';\nexport const ok = toStore;\n",
        'src/cli/bad.ts':
          "import { toStore } from '../operators/toStore.js';\nexport const bad = toStore;\n",
        'bench/bad.ts': "import { toStore } from '../src/operators/toStore.js';\nvoid toStore;\n",
      }),
    ).toEqual([
      'src/cli/bad.ts imports src/operators/toStore.ts: use a public entry, src/client/ or src/objects/',
      'bench/bad.ts imports src/operators/toStore.ts: use a public entry, src/client/ or src/objects/',
    ]);
  });

  it('passes this project', () => {
    expect(findImportProblems(process.cwd())).toEqual([]);
  });
});
