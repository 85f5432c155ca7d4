/**
 * Every TypeScript block of the README and the guides (docs/*.md), as a reader would use it:
 * compiled in a project of its own that imports `kube-rx` from the built package (through its
 * exports map, as a dependency would), and run when it is not a sketch, against a
 * FakeKubeApiServer that is the current kubeconfig context. The info strings are described in
 * scripts/docBlocks.mjs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import {
  blockKind,
  documentFiles,
  extractBlocks,
  usesGivenKubeConfig,
  type DocBlock,
} from '../../scripts/docBlocks.mjs';
import { deployments, pods, replicasets } from '../../src/index.js';
import { FakeKubeApiServer, deployment, pod } from '../../src/testing/index.js';
import { buildPackage } from '../support/packageBuild.js';

const ROOT = resolve(process.cwd());

/** How long a running block may take to print its first line, and to go on printing after. */
const FIRST_OUTPUT_MS = 30_000;
const QUIET_AFTER_OUTPUT_MS = 2_000;
const MOST_MS = 45_000;

/** One line, so that a block's lines keep their numbers plus one. */
const GIVEN_KC =
  "import { KubeConfig as GivenKubeConfig } from '@kubernetes/client-node'; " +
  'const kc = new GivenKubeConfig(); kc.loadFromDefault();\n';

const blocks = documentFiles().flatMap(extractBlocks);
const fileOf = (block: DocBlock) => `block${blocks.indexOf(block)}.ts`;

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface BlockRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Ended by this spec once it had printed and gone quiet (a watch never ends by itself). */
  stopped: boolean;
}

let temp: string;
let server: FakeKubeApiServer | undefined;
const diagnostics = new Map<string, string[]>();
const runs = new Map<string, BlockRun>();

beforeAll(async () => {
  const built = await buildPackage();
  temp = mkdtempSync(join(tmpdir(), 'kube-rx-docs-'));
  // A consumer's project: kube-rx is the built package, the rest the repository's packages.
  writeFileSync(join(temp, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const modules = join(temp, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules')))
    if (!name.startsWith('.') && name !== 'kube-rx')
      symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  symlinkSync(built, join(modules, 'kube-rx'));

  for (const block of blocks) {
    const prelude = blockKind(block) !== 'browser' && usesGivenKubeConfig(block) ? GIVEN_KC : '';
    writeFileSync(join(temp, fileOf(block)), prelude + block.code);
  }
  compile(
    blocks.filter((b) => blockKind(b) !== 'browser'),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts'],
      types: ['node', 'jest'],
    },
  );
  compile(
    blocks.filter((b) => blockKind(b) === 'browser'),
    {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      customConditions: ['browser'],
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
      noEmit: true,
    },
  );
  // The current context of every block that runs: a cluster with a deployment, its replica
  // set and two pods.
  server = await FakeKubeApiServer.start({ tls: true });
  const rs = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-7c9d5b',
      namespace: 'default',
      uid: 'uid-web-7c9d5b',
      labels: { app: 'web' },
    },
    spec: { selector: { matchLabels: { app: 'web' } } },
  };
  server.create(deployments, deployment('web', '0'));
  server.create(replicasets, rs);
  for (const name of ['web-7c9d5b-a', 'web-7c9d5b-b'])
    server.create(
      pods,
      pod(name, '0', {
        metadata: {
          labels: { app: 'web' },
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: rs.metadata.name,
              uid: rs.metadata.uid,
              controller: true,
            },
          ],
        },
      }),
    );
  const kubeconfig = await server.writeKubeConfig(join(temp, 'kubeconfig'));

  // Two at a time: each is a Node.js process of its own.
  const queue = blocks.filter(
    (b) => blockKind(b) === 'run' && (diagnostics.get(fileOf(b)) ?? []).length === 0,
  );
  const next = async (): Promise<void> => {
    for (let block = queue.shift(); block; block = queue.shift()) {
      const script = join(temp, 'out', fileOf(block).replace(/\.ts$/, '.js'));
      runs.set(fileOf(block), await runBlock(script, kubeconfig));
    }
  };
  await Promise.all([next(), next()]);
}, 400_000);

afterAll(async () => {
  await server?.stop();
  if (temp) rmSync(temp, { recursive: true, force: true });
});

/** Type-checks the blocks in one program; emits the ones that run into out/. */
function compile(selected: DocBlock[], options: ts.CompilerOptions): void {
  const files = selected.map(fileOf).filter((file) => existsSync(join(temp, file)));
  if (files.length === 0) return;
  const program = ts.createProgram(
    files.map((file) => join(temp, file)),
    {
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      esModuleInterop: true,
      verbatimModuleSyntax: true,
      typeRoots: [join(temp, 'node_modules', '@types')],
      rootDir: temp,
      outDir: join(temp, 'out'),
      ...options,
    },
  );
  for (const file of files) {
    const block = blocks.find((b) => fileOf(b) === file)!;
    const source = program.getSourceFile(join(temp, file))!;
    const offset = usesGivenKubeConfig(block) && blockKind(block) !== 'browser' ? 1 : 0;
    const found = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].map((d) => {
      const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      return `${block.file}:${block.line + at - offset} TS${d.code}: ${text}`;
    });
    diagnostics.set(file, found);
    if (found.length === 0 && blockKind(block) === 'run') program.emit(source);
  }
}

function runBlock(script: string, kubeconfig: string): Promise<BlockRun> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [script], {
      cwd: temp,
      env: { ...process.env, KUBECONFIG: kubeconfig, HOME: temp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    const stop = () => {
      stopped = true;
      child.kill('SIGKILL');
    };
    let timer = setTimeout(stop, FIRST_OUTPUT_MS);
    // A block that never goes quiet (it prints all the time) is stopped all the same.
    const cap = setTimeout(stop, MOST_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      clearTimeout(timer);
      timer = setTimeout(stop, QUIET_AFTER_OUTPUT_MS);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(cap);
      resolveRun({ code, stdout, stderr, stopped });
    });
  });
}

describe.each([...new Set(blocks.map((b) => b.file))])('%s', (file) => {
  const mine = blocks.filter((b) => b.file === file);
  for (const block of mine) {
    const kind = blockKind(block);
    const name = `line ${block.line}`;
    if (kind !== 'run') {
      it(`${name} compiles (${kind})`, () => {
        expect(diagnostics.get(fileOf(block))).toEqual([]);
      });
      continue;
    }
    it(`${name} compiles and runs${usesGivenKubeConfig(block) ? ' (kc given)' : ''}`, async () => {
      expect(diagnostics.get(fileOf(block))).toEqual([]);
      const run = runs.get(fileOf(block))!;
      // It ended well, or was stopped while it went on (a watch, a dashboard), after printing.
      const ended = run.stopped ? 'stopped after printing' : `exit ${run.code}`;
      const healthy = (run.stopped || run.code === 0) && run.stdout !== '';
      expect({ ended, printed: run.stdout !== '', stderr: healthy ? '' : run.stderr }).toEqual({
        ended: run.stopped ? 'stopped after printing' : 'exit 0',
        printed: true,
        stderr: '',
      });
    });
  }
});

describe('what users read', () => {
  it('has every guide in the documentation site, in typedoc.json', () => {
    // typedoc.json has // comments on lines of their own.
    const config = JSON.parse(
      readFileSync(join(ROOT, 'typedoc.json'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
    );
    const guides = documentFiles()
      .slice(1)
      .map((path) => path.slice(ROOT.length + 1));
    expect([...config.projectDocuments].sort()).toEqual(guides);
  });

  // The README, the guides, the CHANGELOG, and the sources: their comments are the API
  // reference, their strings the command's help and messages.
  it('names no internal issue numbers', () => {
    const texts = [
      ...documentFiles(),
      join(ROOT, 'CHANGELOG.md'),
      ...sourceFiles(join(ROOT, 'src')),
    ];
    const found = texts.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\bissues?\s*#?\d+|\(#\d+\)/i.test(line)
            ? [`${path.slice(ROOT.length + 1)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
