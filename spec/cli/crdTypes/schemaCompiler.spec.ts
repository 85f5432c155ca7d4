import { describe, expect, it } from '@jest/globals';
import { CliError } from '../../../src/cli/CliError.js';
import { loadSchemaCompiler } from '../../../src/cli/crdTypes/loadSchemaCompiler.js';

// json-schema-to-typescript is an optional peer dependency: without it, the command says how
// to install it; any other failure to load it is not hidden behind that message.
describe('loadSchemaCompiler', () => {
  it('names the npm install line when the package is missing', async () => {
    const missing = Object.assign(new Error("Cannot find package 'json-schema-to-typescript'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const loading = loadSchemaCompiler(() => Promise.reject(missing));
    await expect(loading).rejects.toThrow(CliError);
    await expect(loading).rejects.toThrow(
      'kube-rx crd-types needs json-schema-to-typescript, an optional peer dependency: npm install -D json-schema-to-typescript',
    );
  });

  it('lets another failure through as it is', async () => {
    const broken = new SyntaxError('Unexpected token');
    await expect(loadSchemaCompiler(() => Promise.reject(broken))).rejects.toBe(broken);
  });

  it('compiles with the installed package', async () => {
    const compile = await loadSchemaCompiler();
    const source = await compile(
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      'Thing',
    );
    expect(source).toMatch(/export interface Thing \{\s*a: string;\s*\}/);
  });
});
