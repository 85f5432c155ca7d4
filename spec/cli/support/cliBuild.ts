import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fingerprintOf, sharedBuild } from '../../support/sharedBuild.js';

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
  const dir = await sharedBuild({
    builds: BUILDS,
    fingerprint: fingerprintOf([join(ROOT, 'src')], (name) => name.endsWith('.ts')),
    done: join('cli', 'main.js'),
    build: compile,
    what: 'the kube-rx command',
    timeoutMs: 120_000,
  });
  return join(dir, 'cli', 'main.js');
}

async function compile(staging: string): Promise<void> {
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
    throw new Error(`building the kube-rx command failed:\n${output}`);
  }
}
