import { describe, expect, it } from '@jest/globals';
import v8 from 'node:v8';
import vm from 'node:vm';
import { shareStrings } from '../../src/shapes/shareStrings.js';
import { shareManagedFields } from '../../src/shapes/shareManagedFields.js';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** Heap bytes that `make()`'s result keeps, after full collections. */
function heapKeptBy(make: () => unknown): number {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toBeDefined();
  return after - before;
}

/** `count` objects as JSON.parse gives them: each holds its own copy of every string. */
function decodedObjects(count: number, transform: (o: object) => object = (o) => o): object[] {
  const line = JSON.stringify({
    metadata: { labels: { app: 'checkout-'.repeat(10), tier: 'backend-'.repeat(12) } },
    spec: { images: Array.from({ length: 8 }, (_, i) => `registry.example.com/shop/${i}:v2.1.0`) },
  });
  return Array.from({ length: count }, () => transform(JSON.parse(line) as object));
}

describe('shareStrings', () => {
  it('keeps equal strings once: objects that repeat them take far less heap', () => {
    const copies = heapKeptBy(() => decodedObjects(5000));
    const shared = heapKeptBy(() => decodedObjects(5000, shareStrings));
    // 10 strings of 36-96 characters per object: about 640 bytes of copies each (3.2 MB in all
    // measured; without sharing the two differ by next to nothing).
    expect(copies - shared).toBeGreaterThan(5000 * 300);
  });

  it('keeps a bounded table: strings never seen again are let go once it holds 8 Mi characters', () => {
    // 200 000 distinct strings of 100 characters: 20 M characters, dropped after being shared.
    const retained = heapKeptBy(() => {
      for (let i = 0; i < 200; i++) {
        const batch = Array.from({ length: 1000 }, (_, j) =>
          `${String(i * 1000 + j).padStart(10, '0')}${'s'.repeat(90)}`.slice(),
        );
        shareStrings(batch);
      }
      return true;
    });
    // The table keeps at most 8 Mi characters (about 12 MB with its entries), not 20 M (63 MB).
    expect(retained).toBeLessThan(24 * 1024 * 1024);
  });

  it('changes no value, and leaves alone what it cannot or need not share', () => {
    const long = 'x'.repeat(200);
    const object = {
      a: 'text',
      list: ['one', 2, null, true, { deep: 'two' }],
      n: 1,
      none: null,
      long,
    };
    const before = JSON.stringify(object);
    expect(shareStrings(object)).toBe(object);
    expect(JSON.stringify(object)).toBe(before);
    expect(shareStrings(null)).toBeNull();
    expect(shareStrings('alone')).toBe('alone');
    expect(shareStrings(7)).toBe(7);
  });

  it('goes past frozen parts (field sets shared by shareManagedFields) without writing to them', () => {
    const pod = () => ({
      metadata: {
        name: 'a',
        managedFields: [{ manager: 'kubelet', fieldsV1: { 'f:status': { 'f:phase': {} } } }],
      },
    });
    const first = shareManagedFields(pod());
    const second = shareStrings(shareManagedFields(pod()));
    expect(second.metadata.managedFields[0].fieldsV1).toBe(
      first.metadata.managedFields[0].fieldsV1,
    );
    expect(second).toEqual(pod());
  });
});
