import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = join(process.cwd(), 'scripts/checkImports.mjs');

/** Runs the check on a project made of `files` (path -> source); returns its exit and output. */
async function check(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'check-imports-'));
  try {
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    const { stdout } = await run(process.execPath, [script, root]);
    return { code: 0, output: stdout };
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, output: stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('scripts/checkImports.mjs', () => {
  it('passes a project without cycles or imports from spec/', async () => {
    const result = await check({
      'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'src/b.ts': 'export const b = 1;\n',
      'spec/a.spec.ts': "import { a } from '../src/a.js';\n",
    });
    expect(result).toEqual({ code: 0, output: expect.stringMatching(/no cycle among 2 modules/) });
  });

  it('fails on a cycle, type-only imports included, naming its modules', async () => {
    const result = await check({
      'src/a.ts': "import type { B } from './b/b.js';\nexport type A = B;\n",
      'src/b/b.ts': "import { c } from '../c.js';\nexport type B = number;\nexport const d = c;\n",
      'src/c.ts': "import type { A } from './a.js';\nexport const c: A | 1 = 1;\n",
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain('import cycle: src/a.ts <-> src/b/b.ts <-> src/c.ts');
  });

  it('fails on src/, bench/ or examples/ importing from spec/', async () => {
    const result = await check({
      'src/a.ts': 'export const a = 1;\n',
      'bench/run.ts': "import { helper } from '../spec/support/helper.js';\nhelper();\n",
      'spec/support/helper.ts': 'export function helper() {}\n',
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain('bench/run.ts imports spec/support/helper.ts from spec/');
  });
});
