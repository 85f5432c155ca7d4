import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The script is plain JavaScript run by node; imported by URL so tsc does not type it.
const scriptUrl = pathToFileURL(join(process.cwd(), 'scripts/apiReport.mjs')).href;
const { apiReports, checkApiReports, lineDiff, writeApiReports } = (await import(scriptUrl)) as {
  lineDiff: (before: string, after: string, beforeName?: string, afterName?: string) => string;
  apiReports: (root: string) => Map<string, string>;
  checkApiReports: (root: string, reports?: Map<string, string>) => string[];
  writeApiReports: (root: string, reports?: Map<string, string>) => string[];
};

const INDEX = `/** What a widget is. */
export interface Widget {
  /** Its name. */
  name: string;
  size: Size;
}
/** Not exported, but part of the API through Widget. */
interface Size {
  width: number;
}
/**
 * Makes a widget.
 * @deprecated use makeWidget
 */
export function widget(name: string) {
  return { name, size: { width: 1 } } as Widget;
}
export function makeWidget(name: string): Widget {
  return widget(name);
}
export const DEFAULTS = { width: 3, label: 'x' } as const;
export class Box {
  private secret = 1;
  protected inner = 2;
  #hidden = 3;
  constructor(readonly widget: Widget) {}
  open(): number {
    return this.secret + this.inner + this.#hidden;
  }
}
`;

/** A package with two entries, '.' (src/index.ts) and './extra' (src/extra.ts). */
const PROJECT: Record<string, string> = {
  'package.json': JSON.stringify({
    name: 'demo',
    type: 'module',
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './extra': { types: './dist/extra.d.ts', default: './dist/extra.js' },
      './package.json': './package.json',
    },
  }),
  'tsconfig.build.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2022'],
      types: [],
      strict: true,
      skipLibCheck: true,
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  }),
  'src/index.ts': INDEX,
  'src/extra.ts':
    "import type { Widget } from './index.js';\nexport const count = (widgets: Widget[]) => widgets.length;\n",
};

describe('scripts/apiReport.mjs', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kube-rx-api-report-'));
    for (const [path, source] of Object.entries(PROJECT)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const edit = (path: string, change: (source: string) => string) =>
    writeFileSync(join(root, path), change(readFileSync(join(root, path), 'utf8')));

  it('reports each entry: declarations as built, sorted, with what they reference unexported', () => {
    const reports = apiReports(root);
    expect([...reports.keys()]).toEqual(['api/demo.api.md', 'api/demo-extra.api.md']);
    const main = reports.get('api/demo.api.md')!;
    expect(main).toContain('## API report for "demo"');
    // Sorted by name whatever the case (then upper case first), inferred types written out,
    // bodies gone, comments gone but @deprecated, private and protected members gone, a
    // parameter property kept.
    expect(main.slice(main.indexOf('```ts\n'))).toBe(
      [
        '```ts',
        'export class Box {',
        '    readonly widget: Widget;',
        '    constructor(widget: Widget);',
        '    open(): number;',
        '}',
        '',
        'export const DEFAULTS: {',
        '    readonly width: 3;',
        '    readonly label: "x";',
        '};',
        '',
        'export function makeWidget(name: string): Widget;',
        '',
        'export interface Widget {',
        '    name: string;',
        '    size: Size;',
        '}',
        '',
        '/** @deprecated */',
        'export function widget(name: string): Widget;',
        '```',
        '',
        'Not exported, referenced by the exports above (a change to these changes the API too):',
        '',
        '```ts',
        'interface Size {',
        '    width: number;',
        '}',
        '```',
        '',
      ].join('\n'),
    );
    const extra = reports.get('api/demo-extra.api.md')!;
    expect(extra).toContain('// Referenced below, exported by demo: Widget\n');
    expect(extra).toContain('export const count: (widgets: Widget[]) => number;');
    expect(extra).not.toContain('interface Widget');
  });

  it('passes when the reports are current, fails with a diff when an export is added, removed or changed', () => {
    writeApiReports(root);
    expect(checkApiReports(root)).toEqual([]);

    // Added, and a signature changed, in one edit: one diff naming both.
    edit('src/index.ts', (source) =>
      source
        .replace(
          'export function makeWidget(name: string)',
          'export function makeWidget(name: string, size?: Size)',
        )
        .concat('export type Shape = "round" | "square";\n'),
    );
    const [diff, ...rest] = checkApiReports(root);
    expect(rest).toEqual([]);
    expect(diff).toContain('--- api/demo.api.md (committed)\n+++ api/demo.api.md (current API)\n');
    expect(diff).toContain('\n-export function makeWidget(name: string): Widget;\n');
    expect(diff).toContain('\n+export function makeWidget(name: string, size?: Size): Widget;\n');
    expect(diff).toContain('\n+export type Shape = "round" | "square";\n');
    writeApiReports(root);
    expect(checkApiReports(root)).toEqual([]);

    // Removed; and a change to an unexported type that an export references.
    edit('src/index.ts', (source) =>
      source
        .replace(/export class Box[^]*$/, '')
        .replace('width: number;', 'width: number;\n  height?: number;'),
    );
    const [removed] = checkApiReports(root);
    expect(removed).toContain('\n-export class Box {\n');
    expect(removed).toContain('\n+    height?: number;\n');

    // An entry gone: its report is stale.
    edit('package.json', (source) => {
      const pkg = JSON.parse(source);
      delete pkg.exports['./extra'];
      return JSON.stringify(pkg);
    });
    expect(checkApiReports(root)).toContainEqual(
      "api/demo-extra.api.md: no entry of package.json's exports has this report any more",
    );
    writeApiReports(root);
    expect(checkApiReports(root)).toEqual([]);
  });

  it('diffs like diff -u: hunks with 3 lines of context, removed lines before added ones', () => {
    const before = Array.from({ length: 15 }, (_, i) => String(i + 1)).join('\n');
    const after = before.replace('2\n', '2\nX\n').replace('13', '13b');
    expect(lineDiff(before, after, 'old', 'new')).toBe(
      [
        '--- old',
        '+++ new',
        '@@ -1,5 +1,6 @@',
        ...[' 1', ' 2', '+X', ' 3', ' 4', ' 5'],
        '@@ -10,6 +11,6 @@',
        ...[' 10', ' 11', ' 12', '-13', '+13b', ' 14', ' 15'],
      ].join('\n'),
    );
    expect(lineDiff(before, before)).toBe('');
  });
});
