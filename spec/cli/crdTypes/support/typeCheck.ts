import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(process.cwd());
/** Where the checked modules seem to be: inside the repository, so that packages resolve. */
const VIRTUAL_DIR = join(ROOT, 'spec', 'cli', 'crdTypes', '__checked__');

/**
 * Type-checks in-memory modules (`{ 'crontab.ts': source, 'usage.ts': source }`, importing one
 * another as `./crontab.js`) in one program under `strict` and more (what a strict consumer
 * turns on), `kube-rx` being this repository's public entry and `@kubernetes/client-node` the
 * installed package, and returns each module's diagnostics as `TS2322: ...` lines.
 *
 * @example
 * const errors = typeCheck({ 'a.ts': "const n: number = 'x';" }); // { 'a.ts': ['TS2322: ...'] }
 */
export function typeCheck(modules: Record<string, string>): Record<string, string[]> {
  const virtual = new Map(
    Object.entries(modules).map(([name, source]) => [join(VIRTUAL_DIR, name), source]),
  );
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
    lib: ['lib.es2023.d.ts'],
    baseUrl: ROOT,
    paths: { 'kube-rx': ['src/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile, directoryExists } = host;
  host.directoryExists = (dir) => dir === VIRTUAL_DIR || (directoryExists?.call(host, dir) ?? true);
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const source = virtual.get(file);
    if (source !== undefined) return ts.createSourceFile(file, source, language, true);
    return getSourceFile.call(host, file, language, ...rest);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const result: Record<string, string[]> = {};
  for (const [file] of virtual) {
    const source = program.getSourceFile(file)!;
    result[file.slice(VIRTUAL_DIR.length + 1)] = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  }
  return result;
}

/** A corpus file's text. */
export function corpusFile(name: string): string {
  const file = corpusPath(name);
  if (!existsSync(file)) throw new Error(`no corpus file ${name}`);
  return readFileSync(file, 'utf8');
}

/** A corpus file's path. */
export function corpusPath(name: string): string {
  return join(ROOT, 'spec', 'cli', 'crdTypes', 'corpus', name);
}
