import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { removeTempDirs, tempDir } from '../../support/tempDirs.js';
import { isolatedEnv } from '../support/cliProcess.js';
import { crdTypes } from './support/runCrdTypes.js';
import { corpusFile, corpusPath } from './support/typeCheck.js';

jest.setTimeout(30_000);

// Bad input: exit 1, one message naming the file (or CRD) and the JSON path, and no output at
// all: nothing on stdout, no -o file, an existing -o file left as it was.
let dir: string;
let env: NodeJS.ProcessEnv;

/** The corpus CronTab, changed by `edit`, written as `name` in the spec's directory. */
function crontabWith(name: string, edit: (crd: any) => void): string {
  const crd = yaml.load(corpusFile('crontab.yaml')) as any;
  edit(crd);
  return write(name, yaml.dump(crd));
}

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

beforeAll(() => {
  dir = tempDir('crd-types');
  env = isolatedEnv();
});

afterAll(() => removeTempDirs());

const V1_SCHEMA = '.spec.versions[0].schema.openAPIV3Schema';
const cases: [string, () => string, RegExp][] = [
  [
    'a file that is not a CRD',
    () => write('configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n'),
    /configmap\.yaml: \.: not a CustomResourceDefinition \(apiextensions\.k8s\.io\/v1\), but v1 ConfigMap$/,
  ],
  [
    'a v1beta1 CRD',
    () => crontabWith('v1beta1.yaml', (crd) => (crd.apiVersion = 'apiextensions.k8s.io/v1beta1')),
    /v1beta1\.yaml: \.: .*gone since Kubernetes 1\.22: convert it to v1\)$/,
  ],
  [
    'a CRD without versions',
    () => crontabWith('noversions.yaml', (crd) => delete crd.spec.versions),
    /noversions\.yaml \(crontabs\.stable\.example\.com\): \.spec\.versions: no versions$/,
  ],
  [
    'a version without a schema',
    () => crontabWith('noschema.yaml', (crd) => delete crd.spec.versions[0].schema),
    /noschema\.yaml \(crontabs\.stable\.example\.com\): \.spec\.versions\[0\]\.schema\.openAPIV3Schema: missing/,
  ],
  [
    'a schema with a $ref',
    () =>
      crontabWith('ref.yaml', (crd) => {
        crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.template = {
          $ref: '#/definitions/PodTemplateSpec',
        };
      }),
    new RegExp(
      `ref\\.yaml \\(crontabs\\.stable\\.example\\.com\\): ${escape(V1_SCHEMA)}\\.properties\\.spec\\.properties\\.template: a \\$ref`,
    ),
  ],
  [
    'a schema with an unknown type',
    () =>
      crontabWith('type.yaml', (crd) => {
        crd.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties['odd-field'] = {
          type: 'array',
          items: { type: 'strin' },
        };
      }),
    /type\.yaml \(crontabs\.stable\.example\.com\): \.spec\.versions\[1\]\.schema\.openAPIV3Schema\.properties\.spec\.properties\["odd-field"\]\.items: unknown type "strin": expected one of object, array, string, integer, number, boolean$/,
  ],
  [
    'a node without a type',
    () =>
      crontabWith('notype.yaml', (crd) => {
        crd.spec.versions[0].schema.openAPIV3Schema.properties.status.properties.active.items = {};
      }),
    /notype\.yaml .*\.properties\.status\.properties\.active\.items: no type/,
  ],
  [
    'properties and additionalProperties together',
    () =>
      crontabWith('both.yaml', (crd) => {
        crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.additionalProperties = {
          type: 'integer',
        };
      }),
    /both\.yaml .*openAPIV3Schema\.properties\.spec: properties and additionalProperties together/,
  ],
  [
    'unreadable YAML',
    () =>
      write(
        'broken.yaml',
        'apiVersion: apiextensions.k8s.io/v1\nkind: [CustomResourceDefinition\n',
      ),
    /broken\.yaml: not readable YAML: /,
  ],
  ['a missing file', () => join(dir, 'missing.yaml'), /missing\.yaml: no such file$/],
  [
    'two CRDs of the same kind',
    () => {
      const crd = yaml.load(corpusFile('crontab.yaml')) as any;
      const other = { ...crd, metadata: { name: 'crontabs.other.example.com' } };
      other.spec = { ...crd.spec, group: 'other.example.com' };
      return write('two-groups.yaml', `${yaml.dump(crd)}---\n${yaml.dump(other)}`);
    },
    /two-groups\.yaml \(document 2\) \(crontabs\.other\.example\.com\): would declare CronTabV1, already declared by .*two-groups\.yaml \(document 1\) \(crontabs\.stable\.example\.com\): generate them into separate files$/,
  ],
];

describe('kube-rx crd-types on bad input', () => {
  it.each(cases)('%s: exit 1, the file and the JSON path, no output', async (_, make, message) => {
    const out = join(dir, 'types.ts');
    writeFileSync(out, '// the previous run\n');
    // A good CRD first: what it would have given is not written either.
    const run = await crdTypes([corpusPath('widget.yaml'), make(), '-o', out], env);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.warnings).toHaveLength(1);
    expect(run.warnings[0]).toMatch(/^kube-rx: /);
    expect(run.warnings[0]).toMatch(message);
    expect(readFileSync(out, 'utf8')).toBe('// the previous run\n');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const toStdout = await crdTypes([corpusPath('widget.yaml'), make()], env);
    expect({ code: toStdout.code, out: toStdout.out }).toEqual({ code: 1, out: '' });
  });

  it('writes -o in one rename, and nothing on stdout', async () => {
    const out = join(dir, 'crontab.types.ts');
    const run = await crdTypes([corpusPath('crontab.yaml'), '-o', out], env);
    expect({ code: run.code, out: run.out, warnings: run.warnings }).toEqual({
      code: 0,
      out: '',
      warnings: [],
    });
    expect(readFileSync(out, 'utf8')).toMatch(/^\/\/ Generated by kube-rx crd-types from /);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses no argument, an -o that is not .ts, and an unwritable -o', async () => {
    expect((await crdTypes([], env)).warnings).toEqual([
      'kube-rx: missing CRD: kube-rx crd-types <crd.yaml | crd name>... (see: kube-rx crd-types --help)',
    ]);
    const js = await crdTypes([corpusPath('crontab.yaml'), '-o', join(dir, 'a.js')], env);
    expect({ code: js.code, warnings: js.warnings }).toEqual({
      code: 1,
      warnings: [`kube-rx: bad --output "${join(dir, 'a.js')}": expected a .ts file`],
    });
    const nowhere = join(dir, 'no-such-dir', 'a.ts');
    const unwritable = await crdTypes([corpusPath('crontab.yaml'), '-o', nowhere], env);
    expect(unwritable.code).toBe(1);
    expect(unwritable.warnings[0]).toBe(
      `kube-rx: cannot write ${nowhere}: ENOENT: no such file or directory`,
    );
    expect(existsSync(nowhere)).toBe(false);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
