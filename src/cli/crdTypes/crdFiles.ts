import { existsSync, readFileSync, statSync } from 'node:fs';
import yaml from 'js-yaml';
import { CliError } from '../CliError.js';
import { checkCrd, type Crd } from './crd.js';

/**
 * Whether a command-line argument names a file rather than a CRD on the cluster: a path that
 * exists, or one that cannot be a CRD name (a slash, a `.yaml`/`.yml`/`.json` ending), so that
 * a mistyped path says "no such file" rather than asking the cluster for it.
 *
 * @example
 * isFileArgument('crontab.yaml'); // true, even when missing
 * isFileArgument('crontabs.stable.example.com'); // false, unless such a file exists
 */
export function isFileArgument(arg: string): boolean {
  return existsSync(arg) || arg.includes('/') || /\.(ya?ml|json)$/i.test(arg);
}

/**
 * The CRDs of one file: YAML (several documents allowed, empty ones skipped) or JSON, each
 * document a CustomResourceDefinition or a `List` of them (what `kubectl get crd -o yaml`
 * prints). Anything else, or YAML that does not parse, is a {@link CliError} naming the file.
 *
 * @example
 * const crds = readCrdFile('config/crd/bases/stable.example.com_crontabs.yaml');
 */
export function readCrdFile(file: string): Crd[] {
  if (!existsSync(file)) throw new CliError(`${file}: no such file`);
  if (statSync(file).isDirectory()) throw new CliError(`${file}: a directory, not a CRD file`);
  let docs: unknown[];
  try {
    docs = yaml.loadAll(readFileSync(file, 'utf8'));
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CliError(`${file}: not readable YAML: ${why}`);
  }
  const several = docs.length > 1;
  const crds = docs.flatMap((doc, i) => {
    if (doc === null || doc === undefined) return [];
    const origin = several ? `${file} (document ${i + 1})` : file;
    if (isList(doc)) return doc.items.map((item, j) => checkCrd(item, `${origin} (items[${j}])`));
    return [checkCrd(doc, origin)];
  });
  if (crds.length === 0) throw new CliError(`${file}: no CustomResourceDefinition in it`);
  return crds;
}

function isList(doc: unknown): doc is { items: unknown[] } {
  const d = doc as { kind?: unknown; items?: unknown };
  return typeof d === 'object' && d.kind === 'List' && Array.isArray(d.items);
}
