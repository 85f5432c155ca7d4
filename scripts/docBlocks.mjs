// The TypeScript blocks of the README and the guides (docs/*.md), for the spec that compiles
// them against the built package and runs them (spec/docs/codeBlocks.spec.ts).
//
// A block's info string says what is done with it:
//   ```ts               compiled, then run against a FakeKubeApiServer (it must print something)
//   ```ts sketch        compiled only: a fragment, a spec, or code that needs a real cluster
//   ```ts browser       compiled only, as a page: the `browser` export condition, the DOM's types
// A block that uses `kc` without declaring it gets the KubeConfig of the current context, as
// the README's first block makes it (the spec's current context is its FakeKubeApiServer).
//
//   node scripts/docBlocks.mjs      lists the blocks and what is done with each
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The markdown files whose blocks are checked: the README and every guide. */
export function documentFiles() {
  const docs = join(root, 'docs');
  const guides = readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(docs, name));
  return [join(root, 'README.md'), ...guides];
}

export const FLAGS = ['sketch', 'browser'];

/** Fences whose language is code kube-rx's reader would copy: they must be `ts` blocks. */
const CODE_LANGUAGES = /^(ts|typescript|js|javascript|mjs|cjs|tsx|jsx)$/;

/**
 * The blocks of one markdown file: `{ file, line, flags, code }` (`line` is the 1-based line of
 * the block's first line of code). Throws on a code fence that is not a `ts` block with known
 * flags, and on a fence left open.
 */
export function extractBlocks(path) {
  const file = relative(root, path);
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, language, rest] = open;
    const close = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end])) end++;
    if (end === lines.length) throw new Error(`${file}:${i + 1}: code fence never closed`);
    if (language === 'ts') {
      const flags = rest.split(/\s+/).filter(Boolean);
      const unknown = flags.filter((flag) => !FLAGS.includes(flag));
      if (unknown.length > 0)
        throw new Error(`${file}:${i + 1}: unknown flag(s) ${unknown.join(', ')} (${FLAGS})`);
      const code = lines
        .slice(i + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join('\n');
      blocks.push({ file, line: i + 2, flags, code: `${code}\n` });
    } else if (CODE_LANGUAGES.test(language)) {
      throw new Error(`${file}:${i + 1}: a \`${language}\` block: make it \`ts\` (checked)`);
    }
    i = end;
  }
  return blocks;
}

/** What is done with a block: 'run', 'sketch' or 'browser'. */
export function blockKind(block) {
  return FLAGS.find((flag) => block.flags.includes(flag)) ?? 'run';
}

/** Whether the block uses `kc` without declaring it (it then gets the current context's). */
export function usesGivenKubeConfig(block) {
  return /\bkc\b/.test(block.code) && !/\b(const|let|var)\s+kc\b/.test(block.code);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const path of documentFiles())
    for (const block of extractBlocks(path))
      console.log(
        `${block.file}:${block.line}\t${blockKind(block)}${usesGivenKubeConfig(block) ? ' (kc given)' : ''}`,
      );
}
