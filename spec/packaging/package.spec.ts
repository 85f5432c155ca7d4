/**
 * The package as a consumer gets it: what `npm pack` puts in the tarball, and that tarball
 * installed into a fresh project, type-checked (moduleResolution node16 and bundler), run with
 * Node's ESM loader, required from CommonJS where Node can require() ES modules, bundled for the
 * browser with esbuild, and its command run through npx.
 *
 * The install is offline-first: the project gets a lockfile made of the repository's own entries
 * for the runtime dependencies, so `npm ci --prefer-offline` takes them from the npm cache that
 * installed the repository (the registry only for what the cache lacks).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { nodeTraces } from '../../scripts/browserBundle.mjs';
import { buildPackage } from '../support/packageBuild.js';

const ROOT = resolve(process.cwd());
const run = promisify(execFile);

interface PackedFile {
  path: string;
  size: number;
}

/** Top-level entries of the repository that are not its sources (never copied to be packed). */
const NOT_SOURCES = new Set(['node_modules', 'dist', 'artifacts', 'coverage', 'site', '.git']);

/** Where Node can require() an ES module without a flag: 20.19+, 22.12+, 23+. */
function canRequireEsm(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 23 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
}

/** What the consumer does, in code valid as TypeScript and JavaScript: a watch into a store. */
const BODY = `const server = await FakeKubeApiServer.start();
server.create(pods, pod('web-1', '0'));
const store = await firstValueFrom(
  resilientWatch(server.kubeConfig(), pods, { namespace: 'default' }).pipe(
    toStore(),
    filter((snapshot) => snapshot.synced),
  ),
);
const names = store.values().map((p) => p.metadata?.name ?? '');
const error = new WatchError('gone', { errorType: 'GONE', statusCode: 410, resourcePath: '/api/v1/pods' });
await server.stop();
console.log(JSON.stringify({ names, error: error.name }));
`;
const IMPORTS = `import { pods, resilientWatch, toStore, WatchError } from 'kube-rx';
import { FakeKubeApiServer, pod } from 'kube-rx/testing';
import { filter, firstValueFrom } from 'rxjs';
`;
const REQUIRES = `const { pods, resilientWatch, toStore, WatchError } = require('kube-rx');
const { FakeKubeApiServer, pod } = require('kube-rx/testing');
const { filter, firstValueFrom } = require('rxjs');
`;
const CONSUMER = {
  'consumer.ts': IMPORTS + BODY,
  'consumer.mjs': IMPORTS + BODY,
  'consumer.cjs': `${REQUIRES}(async () => {\n${BODY}})().catch((error) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`,
};

let temp: string;
let pkg: string;
let app: string;
let packed: PackedFile[];
let tarball: string;

beforeAll(async () => {
  const built = await buildPackage();
  temp = mkdtempSync(join(tmpdir(), 'kube-rx-package-'));
  // The repository as npm would pack it (sources, specs and benches included, for "files" to
  // leave out), with the package's build as its dist/.
  pkg = join(temp, 'pkg');
  cpSync(ROOT, pkg, {
    recursive: true,
    filter: (source) => !NOT_SOURCES.has(source.slice(ROOT.length + 1).split('/')[0]!),
  });
  cpSync(join(built, 'dist'), join(pkg, 'dist'), { recursive: true });
  const dryRun = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: pkg,
  });
  packed = (JSON.parse(dryRun.stdout) as Array<{ files: PackedFile[] }>)[0]!.files;
  const packing = await run(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', temp],
    { cwd: pkg },
  );
  tarball = join(temp, (JSON.parse(packing.stdout) as Array<{ filename: string }>)[0]!.filename);
  app = join(temp, 'app');
  await install(app, tarball);
}, 240_000);

afterAll(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('packs the build, the types, README, LICENSE and CHANGELOG', () => {
    const paths = packed.map((file) => file.path);
    for (const path of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'])
      expect(paths).toContain(path);
    // Every file the package's entries name: exports (every condition), main, types, bin.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const targets = new Set<string>([
      manifest.main,
      manifest.types,
      ...Object.values(manifest.bin),
    ]);
    const collect = (value: unknown): void => {
      if (typeof value === 'string') targets.add(value);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(manifest.exports);
    for (const target of targets) expect(paths).toContain(target.replace(/^\.\//, ''));
    expect(readFileSync(join(pkg, 'LICENSE'), 'utf8')).toMatch(
      /^\s*Apache License\s+Version 2\.0, January 2004/,
    );
    expect(manifest.license).toBe('Apache-2.0');
  });

  it('packs nothing else: no sources, specs, benches, scripts or source maps', () => {
    const stray = packed
      .map((file) => file.path)
      .filter(
        (path) =>
          !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(path) &&
          !/^dist\/.+(\.js|\.d\.ts)$/.test(path),
      );
    expect(stray).toEqual([]);
    expect(packed.filter((file) => /\.spec\.|\.bench\./.test(file.path))).toEqual([]);
    // A JS file naming a source map would send debuggers and bundlers to files not shipped.
    const mapped = packed
      .filter((file) => file.path.endsWith('.js'))
      .filter((file) => /\/\/# sourceMappingURL=/.test(readFileSync(join(pkg, file.path), 'utf8')));
    expect(mapped.map((file) => file.path)).toEqual([]);
  });
});

describe('the tarball installed in a fresh project', () => {
  it.each(['node16', 'bundler'])(
    'type-checks with moduleResolution %s',
    async (resolution) => {
      const config = join(app, `tsconfig.${resolution}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: resolution === 'node16' ? 'node16' : 'esnext',
            moduleResolution: resolution,
            strict: true,
            noEmit: true,
            types: ['node'],
            typeRoots: [join(ROOT, 'node_modules', '@types')],
            // The package's declarations are checked once (node16); bundler checks the consumer.
            skipLibCheck: resolution === 'bundler',
          },
          files: ['consumer.ts'],
        }),
      );
      // client-node's typings need @types/ws, which a consumer without it meets with any
      // version of kube-rx: not ours to judge. Every other error fails.
      const output = (await tsc(config)).split('\n');
      const errors = output.filter(
        (line) => /error TS/.test(line) && !/node_modules\/(?!kube-rx\/)/.test(line),
      );
      expect(errors).toEqual([]);
      // The types came from the tarball, through its exports map.
      expect(output).toContain(join(app, 'node_modules/kube-rx/dist/index.d.ts'));
      expect(output).toContain(join(app, 'node_modules/kube-rx/dist/testing/index.d.ts'));
    },
    120_000,
  );

  it('runs with Node.js ESM loader', async () => {
    const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({ names: ['web-1'], error: 'WatchError' });
  }, 30_000);

  const requireEsm = canRequireEsm() ? it : it.skip;
  if (!canRequireEsm())
    console.warn(
      `require('kube-rx') not checked: Node.js ${process.versions.node} cannot require() ES ` +
        'modules without a flag (20.19+, 22.12+ can)',
    );
  requireEsm(
    'require()s it from CommonJS (Node.js 20.19+, 22.12+)',
    async () => {
      const { stdout } = await run(process.execPath, ['consumer.cjs'], { cwd: app });
      expect(JSON.parse(stdout)).toEqual({ names: ['web-1'], error: 'WatchError' });
    },
    30_000,
  );

  it('bundles the browser entry with esbuild, nothing of Node in it', async () => {
    const result = await build({
      stdin: {
        contents: "export { fromWatch, resilientWatch, toStore, pods } from 'kube-rx';",
        resolveDir: app,
        sourcefile: 'page.js',
      },
      absWorkingDir: app,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      outfile: join(app, 'page.bundle.js'),
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('node_modules/kube-rx/dist/browser.js');
    expect(nodeTraces({ metafile: result.metafile, outputFiles: result.outputFiles })).toEqual([]);
  }, 30_000);

  it('runs the kube-rx command through npx', async () => {
    const { stdout } = await run('npx', ['--offline', 'kube-rx', '--help'], { cwd: app });
    expect(stdout).toMatch(/^kube-rx: /);
    expect(stdout).toContain('kube-rx watch <resource>');
  }, 30_000);

  it('says how to install json-schema-to-typescript, an optional peer, when crd-types needs it', async () => {
    writeFileSync(join(app, 'crd.yaml'), 'kind: CustomResourceDefinition\n');
    const failed = await run('npx', ['--offline', 'kube-rx', 'crd-types', 'crd.yaml'], {
      cwd: app,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => error,
    );
    expect({ code: failed.code, stderr: failed.stderr }).toEqual({
      code: 1,
      stderr:
        'kube-rx: kube-rx crd-types needs json-schema-to-typescript, an optional peer dependency: npm install -D json-schema-to-typescript\n',
    });
  }, 30_000);
});

/**
 * A project depending on the tarball alone, installed with `npm ci` from a lockfile that takes
 * every runtime dependency's entry (version, resolved, integrity) from the repository's lockfile.
 */
async function install(dir: string, tarball: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const spec = `file:../${basename(tarball)}`;
  const packages: Record<string, unknown> = {
    '': { name: 'kube-rx-consumer', dependencies: { 'kube-rx': spec } },
    'node_modules/kube-rx': {
      version: manifest.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      license: manifest.license,
      dependencies: manifest.dependencies,
      peerDependencies: manifest.peerDependencies,
      peerDependenciesMeta: manifest.peerDependenciesMeta,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages as Record<string, { dev?: boolean }>))
    if (path !== '' && path.startsWith('node_modules/') && !entry.dev) packages[path] = entry;
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(CONSUMER)) writeFileSync(join(dir, name), text);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'kube-rx-consumer',
      private: true,
      type: 'module',
      dependencies: { 'kube-rx': spec },
    }),
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'kube-rx-consumer', lockfileVersion: 3, requires: true, packages }),
  );
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: dir,
  });
}

async function tsc(config: string): Promise<string> {
  const compiler = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  // --listFiles names every file of the program; errors come first, on stdout too.
  return run(process.execPath, [compiler, '-p', config, '--listFiles']).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
}
