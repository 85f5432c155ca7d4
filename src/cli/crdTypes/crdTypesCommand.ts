import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { COMMON_OPTIONS, parseCommandArgs } from '../args.js';
import { CliError } from '../CliError.js';
import { CRD_TYPES_HELP } from '../help.js';
import type { CliIo } from '../CliIo.js';
import { withClusterTarget } from '../withClusterTarget.js';
import type { Crd } from './crd.js';
import { isFileArgument, readCrdFile } from './crdFiles.js';
import { generateTypes } from './generateTypes.js';
import { loadSchemaCompiler } from './loadSchemaCompiler.js';

const OPTIONS = {
  ...COMMON_OPTIONS,
  output: { type: 'string', short: 'o' },
} as const;

/**
 * `kube-rx crd-types <crd.yaml | crd name>... [-o file.ts]`: TypeScript types and ResourceRefs
 * for custom resources, from CRD files and from the cluster's CustomResourceDefinitions (the
 * cluster is asked only when an argument is not a file). Everything is read and compiled before
 * anything is written: on any failure ({@link CliError}) there is no output at all, and `-o`
 * replaces its file in one rename.
 *
 * @example
 * const code = await crdTypesCommand(['config/crd/crontab.yaml', '-o', 'src/crontab.types.ts'], io);
 */
export async function crdTypesCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('crd-types', args, OPTIONS);
  if (values.help) {
    io.out(CRD_TYPES_HELP);
    return 0;
  }
  if (positionals.length === 0)
    throw new CliError(
      'missing CRD: kube-rx crd-types <crd.yaml | crd name>... (see: kube-rx crd-types --help)',
    );
  if (values.output !== undefined && !values.output.endsWith('.ts'))
    throw new CliError(`bad --output "${values.output}": expected a .ts file`);
  // Before the cluster is asked anything: a missing compiler should not wait for it.
  const compile = await loadSchemaCompiler();
  const found: Crd[][] = positionals.map((arg) => (isFileArgument(arg) ? readCrdFile(arg) : []));
  const names = positionals.filter((arg) => !isFileArgument(arg));
  if (names.length > 0) {
    await withClusterTarget(values, io, async (target) => {
      const { readClusterCrd } = await import('./readClusterCrd.js');
      for (const [i, arg] of positionals.entries()) {
        if (isFileArgument(arg)) continue;
        found[i] = [await readClusterCrd(target.cluster, target.server, arg, io.signal)];
      }
      return 0;
    });
  }
  const source = await generateTypes(found.flat(), compile);
  if (values.output === undefined) io.out(source);
  else writeAtomically(values.output, source);
  return 0;
}

/**
 * Writes `text` to `file` through a temporary file beside it and a rename: a reader (or a
 * compiler watching the file) sees the old file or the new one, never half of one.
 */
function writeAtomically(file: string, text: string): void {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, text, { flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    // Node's message names the temporary file ("..., open '.types.ts.1a2b.tmp'"): not the one asked for.
    const message = (error as { message?: unknown }).message;
    const why = typeof message === 'string' ? message.replace(/, \w+ '.*'$/, '') : String(error);
    throw new CliError(`cannot write ${file}: ${why}`);
  }
}
