import { afterAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { isFileArgument, readCrdFile } from '../../../src/cli/crdTypes/crdFiles.js';
import { removeTempDirs, tempDir } from '../../support/tempDirs.js';
import { corpusFile, corpusPath } from './support/typeCheck.js';

// What a CRD file may hold: documents (empty ones skipped), a List as `kubectl get crd -o yaml`
// prints it, or JSON; and which arguments are files.
const dir = tempDir('crd-files');
afterAll(() => removeTempDirs());

const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('readCrdFile', () => {
  it('reads every document, skipping empty ones', () => {
    const file = write(
      'docs.yaml',
      `---\n${corpusFile('widget.yaml')}\n---\n---\n${corpusFile('crontab.yaml')}`,
    );
    expect(readCrdFile(file).map((c) => [c.name, c.origin])).toEqual([
      ['widgets.shapes.example.com', `${file} (document 1) (widgets.shapes.example.com)`],
      ['crontabs.stable.example.com', `${file} (document 3) (crontabs.stable.example.com)`],
    ]);
  });

  it('reads a List of CRDs, and JSON', () => {
    const items = ['crontab.yaml', 'widget.yaml'].map((f) => yaml.load(corpusFile(f)));
    const list = write('list.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const crds = readCrdFile(list);
    expect(crds.map((c) => [c.kind, c.namespaced, c.versions.map((v) => v.name)])).toEqual([
      ['CronTab', true, ['v1', 'v1beta1', 'v1alpha1']],
      ['Widget', true, ['v1alpha1']],
    ]);
    expect(crds[1]!.origin).toBe(`${list} (items[1]) (widgets.shapes.example.com)`);
  });

  it('refuses a file with no CRD in it', () => {
    expect(() => readCrdFile(write('empty.yaml', '---\n---\n'))).toThrow(
      `${join(dir, 'empty.yaml')}: no CustomResourceDefinition in it`,
    );
  });
});

describe('isFileArgument', () => {
  it('takes existing paths and what looks like one as files, other words as CRD names', () => {
    expect(isFileArgument(corpusPath('crontab.yaml'))).toBe(true);
    expect(isFileArgument('missing.yaml')).toBe(true);
    expect(isFileArgument('./crds/missing')).toBe(true);
    expect(isFileArgument('crontabs.stable.example.com')).toBe(false);
  });
});
