/**
 * The architecture guide and the repository's layout name files and folders of this tree: every
 * path they name exists, so a move that forgets them fails here, not in a newcomer's hands.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(process.cwd());

/** Every `src/...`, `spec/...` or `bench/...` path written in backticks in `file`. */
function backtickedPaths(file: string): string[] {
  const text = readFileSync(resolve(ROOT, file), 'utf8');
  return [...text.matchAll(/`((?:src|spec|bench|examples)\/[\w./-]+)`/g)].map((m) => m[1]!);
}

/** The top-level entries of the layout block of docs/testing.md, and their indented subfolders. */
function layoutPaths(): string[] {
  const text = readFileSync(resolve(ROOT, 'docs/testing.md'), 'utf8');
  const section = text.slice(text.indexOf("## The repository's layout"));
  const block = section.slice(
    section.indexOf('```') + 3,
    section.indexOf('```', section.indexOf('```') + 3),
  );
  const paths: string[] = [];
  let parent = '';
  for (const line of block.split('\n')) {
    const top = /^((?:src|spec|examples|bench|api|scripts|docs)\/[\w./-]*)\s/.exec(line);
    if (top) {
      parent = top[1]!;
      paths.push(parent);
      continue;
    }
    const sub = /^ {2}((?:\w+\/ ?)+)\s/.exec(line);
    if (sub && parent.endsWith('/')) {
      for (const folder of sub[1]!.trim().split(/\s+/)) paths.push(parent + folder);
    }
  }
  return paths;
}

describe('the architecture guide and the layout', () => {
  it('name only paths that exist', () => {
    const named = [...backtickedPaths('docs/architecture.md'), ...layoutPaths()];
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((path) => !existsSync(resolve(ROOT, path)))).toEqual([]);
  });

  it('name every subfolder of src/client, src/controller and src/operators', () => {
    const layout = layoutPaths();
    const folders = ['src/client/', 'src/controller/', 'src/operators/'].flatMap((parent) =>
      readdirSync(resolve(ROOT, parent), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${parent}${entry.name}/`),
    );
    expect(folders.length).toBeGreaterThan(8);
    expect(folders.filter((folder) => !layout.includes(folder))).toEqual([]);
  });
});
