import type { compile as CompileSchema } from 'json-schema-to-typescript';
import { CliError } from '../CliError.js';
import type { SchemaCompiler } from './generateTypes.js';

/** The package that compiles the schemas: an optional peer dependency of kube-rx. */
const PACKAGE = 'json-schema-to-typescript';

/**
 * json-schema-to-typescript's `compile`, loaded only now: it brings prettier and lodash (about
 * 20 MB) that no other part of kube-rx needs, so it is an optional peer dependency, as
 * prom-client is for `kube-rx/metrics`. Missing, it is a {@link CliError} with the line that
 * installs it. `load` is for specs (a missing package).
 *
 * @example
 * const compile = await loadSchemaCompiler();
 * const source = await compile({ type: 'object', properties: {} }, 'Empty');
 */
export async function loadSchemaCompiler(
  load: () => Promise<{ compile: typeof CompileSchema }> = () =>
    import('json-schema-to-typescript'),
): Promise<SchemaCompiler> {
  let compile: typeof CompileSchema;
  try {
    ({ compile } = await load());
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new CliError(
      `kube-rx crd-types needs ${PACKAGE}, an optional peer dependency: npm install -D ${PACKAGE}`,
    );
  }
  return (schema, name) =>
    compile(schema, name, {
      bannerComment: '',
      // Every object says what it keeps; an unknown keyword never opens one.
      additionalProperties: false,
      unknownAny: true,
      // A CRD schema has no $ref (checked before): nothing to resolve, no file to read.
      declareExternallyReferenced: false,
      strictIndexSignatures: false,
      // Keeps union enums (`'A' | 'B'`) rather than TypeScript enums, which cost runtime code.
      enableConstEnums: false,
      format: true,
      // Prettier's defaults, in single quotes: as the lines kube-rx writes around them.
      style: {
        bracketSpacing: true,
        printWidth: 100,
        semi: true,
        singleQuote: true,
        tabWidth: 2,
        trailingComma: 'all',
        useTabs: false,
      },
    });
}
