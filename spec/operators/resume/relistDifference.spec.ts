import { describe, expect, it } from '@jest/globals';
import { defaultKey } from '../../../src/objects/defaultKey.js';
import { ObjectMap } from '../../../src/operators/resume/ObjectMap.js';
import { freshChange, relistDifference } from '../../../src/operators/resume/relistDifference.js';
import { added, modified, pod } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../../src/types.js';

const node = (name: string, rv?: string): KubernetesObject => ({
  kind: 'Node',
  metadata: { name, resourceVersion: rv },
});

function deliveredOf(
  objects: KubernetesObject[],
  key: (o: KubernetesObject) => string = defaultKey,
) {
  const delivered = new ObjectMap<KubernetesObject>();
  for (const o of objects) delivered.setUnlessRepeat(key(o), o, o.metadata?.resourceVersion);
  return delivered;
}

const fresh = (objects: KubernetesObject[], key: (o: KubernetesObject) => string = defaultKey) =>
  new Map(objects.map((o) => [key(o), o]));

describe('relistDifference', () => {
  it('DELETED first with the last object delivered, then ADDED and MODIFIED in list order, nothing for unchanged', () => {
    const c = pod('c', '3');
    const delivered = deliveredOf([pod('a', '1'), pod('b', '2'), c, node('n1')]);
    const list = [pod('d', '6'), pod('a', '1'), pod('b', '5'), node('n1')];
    // Each change comes with the key it is about.
    expect(relistDifference(delivered, fresh(list))).toEqual([
      ['default/c', { type: 'DELETED', object: c, resourceVersion: '3' }],
      ['default/d', added(pod('d', '6'))],
      ['default/b', modified(pod('b', '5'))],
      // Without a version, nothing proves it unchanged.
      ['n1', { type: 'MODIFIED', object: node('n1'), resourceVersion: undefined }],
    ]);
  });

  it('keyed by uid, a pod re-created under the same name is DELETED (old uid) then ADDED (new uid)', () => {
    const byUid = (o: KubernetesObject) => o.metadata!.uid!;
    const old = pod('a', '3', { metadata: { uid: 'u1' } });
    const recreated = pod('a', '7', { metadata: { uid: 'u2' } });
    expect(relistDifference(deliveredOf([old], byUid), fresh([recreated], byUid))).toEqual([
      ['u1', { type: 'DELETED', object: old, resourceVersion: '3' }],
      ['u2', added(recreated)],
    ]);
    // Keyed by name, the same change is one MODIFIED.
    expect(relistDifference(deliveredOf([old]), fresh([recreated]))).toEqual([
      ['default/a', modified(recreated)],
    ]);
  });

  it('freshChange: ADDED for a new key, MODIFIED for a new version, none when unchanged', () => {
    const delivered = deliveredOf([pod('a', '1')]);
    expect(freshChange(delivered, 'default/b', pod('b', '2'))).toEqual(added(pod('b', '2')));
    expect(freshChange(delivered, 'default/a', pod('a', '3'))).toEqual(modified(pod('a', '3')));
    expect(freshChange(delivered, 'default/a', pod('a', '1'))).toBeUndefined();
  });
});
