// The public API report: one file per entry of package.json's `exports` (api/kube-rx.api.md,
// api/kube-rx-testing.api.md, api/kube-rx-metrics.api.md), listing every exported declaration as
// its declaration file states it (inferred types written out, bodies gone), printed in one layout,
// sorted by name, doc comments dropped but for the tags that change how an export may be used
// (@deprecated, @internal, @alpha, @beta, @experimental), private and protected class members
// left out (as typedoc.json leaves them out of the reference), then the declarations of this
// package that the exports reference without exporting them (a change to those is a change to the
// API too); what another entry exports is named, and reported there.
//
//   node scripts/apiReport.mjs          writes the reports (npm run api:report)
//   node scripts/apiReport.mjs --check  fails with a diff when they differ (npm run api:check, in
//                                       npm test)
//
// It runs the TypeScript compiler's declaration emit in memory over the entries and the modules
// their declarations import (no type check of the whole tree, nothing written but the reports),
// then reads the emitted declarations with a second checker: about 9 s of CPU, where
// @microsoft/api-extractor (50 MB, its own TypeScript) took 6 s per entry after a tsc emit. The `browser` condition is not reported:
// it exports the same as `.` minus the KubeConfig adapter (spec/browser/browserEntry.spec.ts).
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folder of the reports, relative to the project's root. */
export const REPORT_DIR = 'api';

/** The doc-comment tags a report keeps. */
const KEPT_TAGS = ['deprecated', 'internal', 'alpha', 'beta', 'experimental'];

/**
 * The entries of `root`'s package.json `exports` that have types, as
 * `{ subpath, name, source, report }`: './testing' -> kube-rx/testing, src/testing/index.ts,
 * api/kube-rx-testing.api.md.
 */
export function entriesOf(root, options) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const outDir = options.outDir ?? join(root, 'dist');
  const rootDir = options.rootDir ?? join(root, 'src');
  const entries = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const types = typeof target === 'object' && target !== null ? target.types : undefined;
    if (typeof types !== 'string') continue;
    const built = resolve(root, types);
    const source = join(rootDir, relative(outDir, built)).replace(/\.d\.ts$/, '.ts');
    const suffix = subpath === '.' ? '' : '-' + subpath.replace(/^\.\//, '').replaceAll('/', '-');
    entries.push({
      subpath,
      name: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`,
      source,
      report: join(REPORT_DIR, `${pkg.name}${suffix}.api.md`),
    });
  }
  return entries;
}

function compilerOptionsOf(root) {
  const config = join(root, 'tsconfig.build.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    config,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  return parsed.options;
}

/** The reports of the project at `root`: report path (relative to root) -> its text. */
export function apiReports(root) {
  root = resolve(root);
  const options = compilerOptionsOf(root);
  const entries = entriesOf(root, options);
  // The declarations go to a folder that is never written (declared under root so that the
  // emitted files resolve the package's node_modules as the sources do).
  const virtualOut = join(root, '.api-report-declarations');
  const emitOptions = {
    ...options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    sourceMap: false,
    removeComments: false,
    outDir: virtualOut,
    declarationDir: virtualOut,
    rootDir: options.rootDir ?? join(root, 'src'),
  };
  const sourceProgram = ts.createProgram({
    rootNames: entries.map((e) => e.source),
    options: emitOptions,
  });
  // Declarations of the entries and of what their declarations import, in turn: not of every
  // module the entries' code runs (a declaration file imports only what its types name).
  const emitted = new Map();
  const pending = entries.map((e) => resolve(e.source));
  const seen = new Set(pending);
  while (pending.length > 0) {
    const source = pending.pop();
    const file = sourceProgram.getSourceFile(source);
    if (!file) throw new Error(`${relative(root, source)} is not part of the program`);
    const written = [];
    const result = sourceProgram.emit(
      file,
      (fileName, text) => {
        emitted.set(resolve(fileName), text);
        written.push([resolve(fileName), text]);
      },
      undefined,
      true,
    );
    if (result.emitSkipped) {
      const messages = result.diagnostics.map((d) =>
        ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      );
      throw new Error(`declaration emit failed:\n${messages.join('\n')}`);
    }
    for (const [fileName, text] of written) {
      for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
        if (!specifier.startsWith('.')) continue;
        const imported = join(
          emitOptions.rootDir,
          relative(virtualOut, resolve(dirname(fileName), specifier)),
        );
        const candidates = [imported.replace(/\.js$/, '.ts'), join(imported, 'index.ts'), imported];
        const next = candidates.find((c) => sourceProgram.getSourceFile(c));
        if (next && !seen.has(next)) {
          seen.add(next);
          pending.push(next);
        }
      }
    }
  }

  // A second program over the emitted declarations; files of node_modules are the first
  // program's, not parsed again.
  const declarationOptions = { ...options, noEmit: true, skipLibCheck: true };
  const host = ts.createCompilerHost(declarationOptions);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => emitted.has(resolve(f)) || fileExists.call(host, f);
  host.readFile = (f) => emitted.get(resolve(f)) ?? readFile.call(host, f);
  const { directoryExists } = host;
  host.directoryExists = (d) =>
    (resolve(d) + sep).startsWith(virtualOut + sep) || directoryExists.call(host, d);
  host.getSourceFile = (f, languageVersion, onError, shouldCreate) => {
    const text = emitted.get(resolve(f));
    if (text !== undefined) return ts.createSourceFile(f, text, languageVersion, true);
    return (
      sourceProgram.getSourceFile(f) ??
      getSourceFile.call(host, f, languageVersion, onError, shouldCreate)
    );
  };
  const declarationFileOf = (source) =>
    join(virtualOut, relative(emitOptions.rootDir, source)).replace(/\.ts$/, '.d.ts');
  const program = ts.createProgram({
    rootNames: entries.map((e) => declarationFileOf(e.source)),
    options: declarationOptions,
    host,
  });
  const checker = program.getTypeChecker();
  const ours = (node) => resolve(node.getSourceFile().fileName).startsWith(virtualOut + sep);

  // What each entry exports: [name, symbol, its declarations' statements].
  const exportsOf = new Map();
  const exportedBy = new Map(); // statement -> { entry, name } of the first entry exporting it
  for (const entry of entries) {
    const file = program.getSourceFile(declarationFileOf(entry.source));
    if (!file) throw new Error(`no declarations for ${relative(root, entry.source)}`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    const list = [];
    for (const symbol of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const statements = [...new Set((target.declarations ?? []).map(topLevelStatementOf))];
      list.push({ name: symbol.name, target, statements });
      for (const statement of statements) {
        if (!exportedBy.has(statement)) exportedBy.set(statement, { entry, name: symbol.name });
      }
    }
    list.sort((x, y) => compare(x.name, y.name));
    exportsOf.set(entry, list);
  }

  const reports = new Map();
  for (const entry of entries) {
    const printed = new Set(); // top-level statements already in the report
    const blocks = [];
    const queue = []; // statements whose references are still to follow
    for (const { name, target, statements } of exportsOf.get(entry)) {
      if (statements.length > 0 && statements.every((statement) => !ours(statement))) {
        blocks.push(`export { ${name} } // from ${packageOf(statements[0])}`);
        continue;
      }
      const texts = [];
      for (const statement of statements) {
        if (printed.has(statement)) continue;
        printed.add(statement);
        texts.push(declarationText(statement, 'export '));
        queue.push(statement);
      }
      if (target.name !== name && target.name !== 'default') {
        texts.push(`export { ${target.name} as ${name} }`);
      }
      blocks.push(texts.join('\n'));
    }

    // What the exports reference without exporting it, and what that references, in turn; what
    // another entry exports is in that entry's report.
    const unexported = [];
    const fromOthers = new Map(); // entry name -> names
    for (let i = 0; i < queue.length; i++) {
      visitReferences(queue[i], (statement) => {
        if (printed.has(statement)) return;
        printed.add(statement);
        const other = exportedBy.get(statement);
        if (other && other.entry !== entry) {
          if (!fromOthers.has(other.entry.name)) fromOthers.set(other.entry.name, new Set());
          fromOthers.get(other.entry.name).add(other.name);
          return;
        }
        queue.push(statement);
        unexported.push([nameOf(statement), declarationText(statement, '')]);
      });
    }
    unexported.sort((x, y) => compare(x[0], y[0]) || compare(x[1], y[1]));

    let text =
      `## API report for "${entry.name}"\n\n` +
      `> Written by \`npm run api:report\` (scripts/apiReport.mjs) from ` +
      `${relative(root, entry.source).split(sep).join('/')}. Do not edit: \`npm run api:check\`,\n` +
      `> part of \`npm test\`, fails when the public API differs from this file.\n\n` +
      '```ts\n';
    for (const [name, names] of [...fromOthers].sort((x, y) => compare(x[0], y[0]))) {
      const sorted = [...names].sort(compare);
      text += `// Referenced below, exported by ${name}: ${sorted.join(', ')}\n\n`;
    }
    text += blocks.join('\n\n') + '\n```\n';
    if (unexported.length > 0) {
      text +=
        '\nNot exported, referenced by the exports above (a change to these changes the API too):\n\n' +
        '```ts\n' +
        unexported.map(([, declaration]) => declaration).join('\n\n') +
        '\n```\n';
    }
    reports.set(entry.report, text);
  }
  return reports;

  /** Calls `found` with the statement declaring each of ours that `node` references. */
  function visitReferences(node, found) {
    const visit = (n) => {
      if (n.parent && ts.isClassDeclaration(n.parent) && hidden(n)) return;
      let name;
      if (ts.isTypeReferenceNode(n)) name = n.typeName;
      else if (ts.isExpressionWithTypeArguments(n)) name = n.expression;
      else if (ts.isTypeQueryNode(n)) name = n.exprName;
      else if (ts.isImportTypeNode(n)) name = n.qualifier;
      if (name) {
        const last = ts.isQualifiedName(name)
          ? name.right
          : ts.isPropertyAccessExpression(name)
            ? name.name
            : name;
        let symbol = checker.getSymbolAtLocation(last);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias)
          symbol = checker.getAliasedSymbol(symbol);
        for (const declaration of symbol?.declarations ?? []) {
          if (ts.isTypeParameterDeclaration(declaration) || !ours(declaration)) continue;
          found(topLevelStatementOf(declaration));
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
  }
}

function compare(a, b) {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function packageOf(node) {
  const parts = resolve(node.getSourceFile().fileName).split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return 'the TypeScript library';
  return parts[at + 1].startsWith('@') ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
}

function nameOf(statement) {
  if (ts.isVariableStatement(statement))
    return statement.declarationList.declarations[0].name.getText();
  return statement.name?.getText() ?? '';
}

function topLevelStatementOf(node) {
  while (node.parent && !ts.isSourceFile(node.parent)) node = node.parent;
  return node;
}

/** A class without its private and protected members (`#private` included). */
function publicPart(statement) {
  if (!ts.isClassDeclaration(statement)) return statement;
  const members = statement.members.filter((member) => !hidden(member));
  if (members.length === statement.members.length) return statement;
  return ts.factory.updateClassDeclaration(
    statement,
    statement.modifiers,
    statement.name,
    statement.typeParameters,
    statement.heritageClauses,
    members,
  );
}

function hidden(member) {
  if (member.name && ts.isPrivateIdentifier(member.name)) return true;
  // A private constructor stays: it says that the class is not constructed with `new`.
  if (ts.isConstructorDeclaration(member)) return false;
  const flags = ts.getCombinedModifierFlags(member);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}

const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });

/**
 * The statement as the compiler prints it (one layout whatever the source's), `export`/`declare`/
 * `default` dropped and `prefix` put in their place, comments dropped but for a kept tag
 * (`/** @deprecated *\/`).
 */
function declarationText(statement, prefix) {
  const strip = (node) => {
    // Tuples on one line, as declaration files write them (the printer's default is one element a line).
    const layout = ts.isTupleTypeNode(node) ? ts.EmitFlags.SingleLine : 0;
    ts.setEmitFlags(node, ts.EmitFlags.NoComments | layout);
    const tags = new Set();
    for (const doc of node.jsDoc ?? []) {
      for (const tag of doc.tags ?? []) {
        if (KEPT_TAGS.includes(tag.tagName.text)) tags.add(tag.tagName.text);
      }
    }
    const kept = KEPT_TAGS.filter((tag) => tags.has(tag)).map((tag) => '@' + tag);
    ts.setSyntheticLeadingComments(
      node,
      kept.length > 0
        ? [
            {
              kind: ts.SyntaxKind.MultiLineCommentTrivia,
              text: `* ${kept.join(' ')} `,
              hasTrailingNewLine: true,
              pos: -1,
              end: -1,
            },
          ]
        : undefined,
    );
    ts.forEachChild(node, strip);
  };
  strip(statement);
  const text = printer.printNode(
    ts.EmitHint.Unspecified,
    publicPart(statement),
    statement.getSourceFile(),
  );
  // The statement's own tags come first, then its modifiers.
  return text.replace(/^((?:\/\*\*.*\*\/\n)?)(?:(?:export|declare|default)\s+)*/, `$1${prefix}`);
}

/** A unified diff of two texts by lines, with 3 lines of context; '' when they are equal. */
export function lineDiff(before, after, beforeName = 'a', afterName = 'b') {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  // Longest common subsequence of the middles (small: what changed).
  const lcs = Array.from({ length: midA.length + 1 }, () => new Uint32Array(midB.length + 1));
  for (let i = midA.length - 1; i >= 0; i--)
    for (let j = midB.length - 1; j >= 0; j--)
      lcs[i][j] =
        midA[i] === midB[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops = []; // [kind, line, lineA, lineB]
  for (let k = 0; k < head; k++) ops.push([' ', a[k]]);
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
      ops.push([' ', midA[i]]);
      i++;
      j++;
    } else if (i < midA.length && (j === midB.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push(['-', midA[i++]]);
    } else {
      ops.push(['+', midB[j++]]);
    }
  }
  for (let k = a.length - tail; k < a.length; k++) ops.push([' ', a[k]]);
  // Hunks: changed lines with 3 lines of context around them.
  const out = [`--- ${beforeName}`, `+++ ${afterName}`];
  const near = ops.map(() => false);
  ops.forEach(([kind], k) => {
    if (kind === ' ') return;
    for (let m = Math.max(0, k - 3); m <= Math.min(ops.length - 1, k + 3); m++) near[m] = true;
  });
  let lineA = 1;
  let lineB = 1;
  let hunk; // { at, startA, startB, countA, countB }
  for (let k = 0; k < ops.length; k++) {
    const [kind, line] = ops[k];
    if (near[k]) {
      if (!hunk) {
        hunk = { at: out.length, startA: lineA, startB: lineB, countA: 0, countB: 0 };
        out.push('');
      }
      out.push(kind + line);
      if (kind !== '+') hunk.countA++;
      if (kind !== '-') hunk.countB++;
    }
    if (hunk && (!near[k] || k === ops.length - 1)) {
      out[hunk.at] = `@@ -${hunk.startA},${hunk.countA} +${hunk.startB},${hunk.countB} @@`;
      hunk = undefined;
    }
    if (kind !== '+') lineA++;
    if (kind !== '-') lineB++;
  }
  return out.join('\n');
}

/** The differences between the committed reports and the API of `root`, as a readable text. */
export function checkApiReports(root, reports = apiReports(root)) {
  const problems = [];
  for (const [path, text] of reports) {
    const file = join(root, path);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const diff = lineDiff(committed, text, `${path} (committed)`, `${path} (current API)`);
    if (diff) problems.push(diff);
  }
  for (const path of staleReports(root, reports)) {
    problems.push(`${path}: no entry of package.json's exports has this report any more`);
  }
  return problems;
}

/** The report files of REPORT_DIR that are not among `reports`. */
function staleReports(root, reports) {
  const dir = join(root, REPORT_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.api.md'))
    .map((name) => join(REPORT_DIR, name))
    .filter((path) => !reports.has(path));
}

export function writeApiReports(root, reports = apiReports(root)) {
  for (const [path, text] of reports) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  }
  for (const path of staleReports(root, reports)) rmSync(join(root, path));
  return [...reports.keys()];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  if (process.argv.includes('--check')) {
    const problems = checkApiReports(root);
    if (problems.length > 0) {
      console.error(problems.join('\n\n'));
      console.error(
        '\nThe public API differs from its report: run npm run api:report and commit the result.',
      );
      process.exit(1);
    }
    console.log('api:check: the public API matches api/*.api.md');
  } else {
    for (const path of writeApiReports(root)) console.log(`wrote ${path}`);
  }
}
