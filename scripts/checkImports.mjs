// Import rules that lint cannot state, checked in `npm test` (`npm run check-imports`):
// - no import cycle among the modules of src/ (type-only imports count: a cycle of types is a
//   cycle a reader has to hold in their head, and the next value import makes it a real one);
// - nothing under src/, bench/ or examples/ imports from spec/ (the specs use the library, not
//   the other way round);
// - the floors of src/ (FLOORS below, DESIGN "Layout") are imported downwards only: a file imports
//   from its own floor or below, never from a floor above it;
// - a folder's internal/ is imported only from inside that folder;
// - the command (src/cli/), the test kit (src/testing/), bench/ and examples/ use the library
//   through its public entries, src/client/ and src/objects/ (and the ground floor), as an
//   application would: never an operator's or a source's machinery;
// - spec/ mirrors src/ for what users import: every module a public entry (src/index.ts,
//   src/browser.ts, src/testing/index.ts, src/metrics.ts) exports a value from has a spec in the mirrored folder
//   that imports it (src/operators/toStore.ts: a spec under spec/operators/ importing toStore.ts).
// It reads each file's imports with the TypeScript compiler's pre-processor: no type checking,
// well under a second.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

function filesUnder(dir) {
  const out = [];
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (/\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The files a module imports (relative imports only), resolved to files that exist. */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolveImport(file, fileName);
    if (target) out.push(target);
  }
  return out;
}

function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts')];
  candidates.push(join(base, 'index.ts'));
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Strongly connected components with more than one module, or a module importing itself. */
function cycles(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indexOf.get(next)));
    }
    if (low.get(node) !== indexOf.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return found;
}

/**
 * The floors of src/, top first: a module imports from its own floor or one below. A file belongs
 * to the first floor whose prefix it starts with.
 */
export const FLOORS = [
  ['src/cli/'],
  ['src/testing/'],
  ['src/index.ts', 'src/browser.ts', 'src/core.ts', 'src/metrics.ts', 'src/metrics/'],
  ['src/controller/'],
  ['src/operators/share/', 'src/operators/resume/', 'src/operators/store/', 'src/operators/'],
  ['src/watch.ts'],
  ['src/sources/'],
  ['src/shapes/'],
  ['src/client/'],
  ['src/transport/'],
  ['src/objects/'],
  ['src/security/', 'src/WatchError.ts', 'src/types.ts'],
];

/** The operators' machinery, below the public operators, in this order (share uses store...). */
const OPERATOR_FLOORS = ['src/operators/share/', 'src/operators/resume/', 'src/operators/store/'];

/** Floor of a file (its index in FLOORS, sub-floors of the operators as fractions). */
function floorOf(path) {
  const index = FLOORS.findIndex((prefixes) => prefixes.some((prefix) => path.startsWith(prefix)));
  if (index < 0) return undefined;
  const sub = OPERATOR_FLOORS.findIndex((prefix) => path.startsWith(prefix));
  return sub < 0 ? index : index + (sub + 1) / (OPERATOR_FLOORS.length + 1);
}

/** What an application-like part of the project (the command, the test kit, benches) may import. */
const APPLICATION_IMPORTS = [
  'src/index.ts',
  'src/browser.ts',
  'src/core.ts',
  'src/metrics.ts',
  'src/testing/',
  'src/client/',
  'src/objects/',
  'src/security/',
  'src/WatchError.ts',
  'src/types.ts',
];
const APPLICATIONS = ['src/cli/', 'src/testing/', 'bench/', 'examples/'];

/** What benches and examples may use besides: the command's own parts (the dashboard, the demo). */
const TOOL_IMPORTS = ['src/cli/'];

/** Problems with the direction of one import (paths relative to the project root). */
export function importDirectionProblems(from, to) {
  const problems = [];
  const internal = to.match(/^(.*\/)internal\//);
  if (internal && !from.startsWith(internal[1])) {
    problems.push(`${from} imports ${to} from outside ${internal[1]}`);
  }
  if (!to.startsWith('src/')) return problems;
  const application = APPLICATIONS.find((prefix) => from.startsWith(prefix));
  const tool =
    (from.startsWith('bench/') || from.startsWith('examples/')) &&
    TOOL_IMPORTS.some((prefix) => to.startsWith(prefix));
  if (application && !to.startsWith(application) && !tool) {
    if (!APPLICATION_IMPORTS.some((prefix) => to.startsWith(prefix))) {
      problems.push(`${from} imports ${to}: use a public entry, src/client/ or src/objects/`);
    }
  }
  const [fromFloor, toFloor] = [floorOf(from), floorOf(to)];
  if (fromFloor !== undefined && toFloor !== undefined && toFloor < fromFloor) {
    problems.push(`${from} imports ${to}, a floor above it`);
  }
  return problems;
}

/** The public entries: what users import. */
const ENTRIES = ['src/index.ts', 'src/browser.ts', 'src/testing/index.ts', 'src/metrics.ts'];

/**
 * The modules a public entry re-exports a value from (type-only exports aside), following
 * `export * from` through barrels.
 */
function publicModules(root) {
  const found = new Set();
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      if (!ts.isExportDeclaration(statement) || statement.isTypeOnly) continue;
      if (!statement.moduleSpecifier) continue;
      const target = resolveImport(file, statement.moduleSpecifier.text);
      if (target === undefined) continue;
      const clause = statement.exportClause;
      if (clause === undefined) visit(target); // export * from: a barrel, or a module of values
      if (clause === undefined || clause.elements?.some((element) => !element.isTypeOnly)) {
        found.add(target);
      }
    }
  };
  for (const entry of ENTRIES) {
    const file = join(root, entry);
    try {
      if (statSync(file).isFile()) visit(file);
    } catch {
      // a project without this entry
    }
  }
  return [...found].filter((file) => !/\/index\.ts$|\/core\.ts$/.test(file));
}

/** Public modules of src/ with no spec importing them from the mirrored folder of spec/. */
function unmirrored(root) {
  const problems = [];
  for (const file of publicModules(root)) {
    const folder = join(root, 'spec', relative(join(root, 'src'), dirname(file)));
    const specs = filesUnder(folder).filter(
      (spec) => dirname(spec) === folder && spec.endsWith('.spec.ts'),
    );
    if (!specs.some((spec) => importsOf(spec).includes(file))) {
      problems.push(
        `${relative(root, file)} is public and no spec in ${relative(root, folder)}/ imports it`,
      );
    }
  }
  return problems.sort();
}

/**
 * What is wrong with the imports of the project at `root`: one line per cycle among the modules
 * of src/, one per file of src/, bench/ or examples/ that imports from spec/, one per public
 * module without a spec in the mirrored folder.
 */
export function findImportProblems(root) {
  const problems = [];
  const src = new Map(filesUnder(join(root, 'src')).map((file) => [file, importsOf(file)]));
  for (const component of cycles(src)) {
    const cycle = component
      .map((file) => relative(root, file))
      .sort()
      .join(' <-> ');
    problems.push(`import cycle: ${cycle}`);
  }
  const spec = join(root, 'spec') + '/';
  for (const dir of ['src', 'bench', 'examples']) {
    for (const file of filesUnder(join(root, dir))) {
      if (file.endsWith('.spec.ts')) continue; // examples/*.spec.ts are specs themselves
      for (const target of src.get(file) ?? importsOf(file)) {
        if (target.startsWith(spec)) {
          problems.push(`${relative(root, file)} imports ${relative(root, target)} from spec/`);
        }
        problems.push(...importDirectionProblems(relative(root, file), relative(root, target)));
      }
    }
  }
  problems.push(...unmirrored(root));
  return problems;
}

// Run as a script (not imported by its spec): the project is this script's parent directory.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const problems = findImportProblems(root);
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    process.exit(1);
  }
  console.log(
    'imports: no cycle among the modules of src/, nothing imports from spec/, every floor imports downwards, no internal/ from outside, applications use the public entries, every public module has its spec',
  );
}
