import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { shareManagedFields } from '../../src/shapes/shareManagedFields.js';

/** A pod as JSON.parse gives it: nothing shared with any other. */
function decoded(name: string, fieldsV1: object | null | undefined, manager = 'kubelet'): V1Pod {
  return JSON.parse(
    JSON.stringify({
      metadata: {
        name,
        managedFields: [
          { manager, operation: 'Update', fieldsV1 },
          { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:spec': {} } },
        ],
      },
      spec: { containers: [] },
    }),
  ) as V1Pod;
}
const fieldSet = (pod: V1Pod, i = 0): object => pod.metadata!.managedFields![i].fieldsV1!;

describe('shareManagedFields', () => {
  it('gives equal field sets one frozen object, and changes nothing else', () => {
    const status = { 'f:status': { 'f:phase': {}, 'f:conditions': { '.': {} } } };
    const a = decoded('a', status);
    const b = decoded('b', status);
    const c = decoded('c', { 'f:status': { 'f:phase': {} } });
    const before = JSON.stringify([a, b, c]);
    const [sharedA, sharedB, sharedC] = [a, b, c].map((pod) => shareManagedFields(pod));
    expect(sharedA).toBe(a);
    expect(JSON.stringify([sharedA, sharedB, sharedC])).toBe(before);
    expect(fieldSet(b)).toBe(fieldSet(a));
    expect(fieldSet(b, 1)).toBe(fieldSet(a, 1));
    expect(fieldSet(c)).not.toBe(fieldSet(a));
    expect(fieldSet(c, 1)).toBe(fieldSet(a, 1));
    // Frozen all the way down: no object can change what another holds.
    const nested = (fieldSet(a) as Record<string, Record<string, object>>)['f:status'];
    expect(Object.isFrozen(fieldSet(a))).toBe(true);
    expect(Object.isFrozen(nested['f:conditions'])).toBe(true);
    expect(() => {
      (nested as Record<string, object>)['f:podIP'] = {};
    }).toThrow(TypeError);
    // The object itself and its metadata stay the caller's.
    expect(Object.isFrozen(b)).toBe(false);
    expect(Object.isFrozen(b.metadata!.managedFields![0])).toBe(false);
  });

  it('leaves alone what has no field sets to share', () => {
    const plain = { metadata: { name: 'x' } };
    expect(shareManagedFields(plain)).toEqual({ metadata: { name: 'x' } });
    const odd = decoded('odd', null);
    expect(shareManagedFields(odd).metadata!.managedFields![0].fieldsV1).toBeNull();
    const noMetadata = {} as V1Pod;
    expect(shareManagedFields(noMetadata)).toBe(noMetadata);
    const notArray = { metadata: { managedFields: 'x' } } as unknown as V1Pod;
    expect(shareManagedFields(notArray)).toBe(notArray);
  });

  it('does not share a field set longer than 64 Ki characters', () => {
    const big = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`f:key-${String(i).padStart(10, '0')}`, {}]),
    );
    expect(JSON.stringify(big).length).toBeGreaterThan(64 * 1024);
    const a = shareManagedFields(decoded('a', big, 'big'));
    const b = shareManagedFields(decoded('b', big, 'big'));
    expect(fieldSet(b)).toEqual(fieldSet(a));
    expect(fieldSet(b)).not.toBe(fieldSet(a));
    expect(Object.isFrozen(fieldSet(a))).toBe(false);
  });

  it('keeps a bounded table: past 4 MiB of distinct field sets it starts again', () => {
    const first = shareManagedFields(decoded('first', { 'f:metadata': { 'f:first': {} } }));
    expect(
      fieldSet(shareManagedFields(decoded('again', { 'f:metadata': { 'f:first': {} } }))),
    ).toBe(fieldSet(first));
    // About 5 MiB of distinct field sets, 50 KB each.
    for (let i = 0; i < 100; i++) {
      const fields = { [`f:${i}`]: { [`f:${'x'.repeat(50_000)}`]: {} } };
      shareManagedFields(decoded(`filler-${i}`, fields, `m${i}`));
    }
    const later = shareManagedFields(decoded('later', { 'f:metadata': { 'f:first': {} } }));
    expect(fieldSet(later)).toEqual(fieldSet(first));
    expect(fieldSet(later)).not.toBe(fieldSet(first));
  });
});
