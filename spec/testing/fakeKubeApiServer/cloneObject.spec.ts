// The store's copy of an object: what structuredClone would make, never the same objects.
import { describe, expect, it } from '@jest/globals';
import { cloneObject } from '../../../src/testing/fakeKubeApiServer/cloneObject.js';

class Point {
  x = 1;
}

describe('cloneObject', () => {
  it('copies as structuredClone does: Dates, class instances, Maps, undefined, holes', () => {
    const value = {
      metadata: { name: 'a', labels: { shard: 'm-1' }, creationTimestamp: new Date(0) },
      list: [1, { c: undefined }, null, 'x', , 3n], // eslint-disable-line no-sparse-arrays
      bare: Object.assign(Object.create(null) as object, { z: 1 }),
      point: new Point(),
      map: new Map([[1, { deep: true }]]),
      gone: undefined,
    };
    const copy = cloneObject(value);
    // toEqual, not isDeepStrictEqual: under jest, structuredClone answers objects of another realm.
    expect(copy).toEqual(structuredClone(value));
    expect(Object.keys(copy)).toEqual(Object.keys(value));
    expect('gone' in copy && 'c' in (copy.list[1] as object)).toBe(true);
    expect(1 in copy.list && !(4 in copy.list)).toBe(true);
    expect(Object.getPrototypeOf(copy.point)).not.toBe(Point.prototype);
    expect(Object.prototype.toString.call(copy.metadata.creationTimestamp)).toBe('[object Date]');
    expect(copy.map.get(1)).toEqual({ deep: true });
    expect(copy.map.get(1)).not.toBe(value.map.get(1));
  });

  it('shares nothing with the original', () => {
    const value = { metadata: { labels: { a: '1' } }, spec: { ports: [{ port: 80 }] } };
    const copy = cloneObject(value);
    copy.metadata.labels.a = '2';
    copy.spec.ports[0].port = 81;
    expect(value).toEqual({ metadata: { labels: { a: '1' } }, spec: { ports: [{ port: 80 }] } });
  });

  it('throws as structuredClone does for a function, and copies a cycle', () => {
    let thrown: unknown;
    try {
      cloneObject({ f: () => 1 });
    } catch (e) {
      thrown = e;
    }
    expect((thrown as Error | undefined)?.name).toBe('DataCloneError');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const copy = cloneObject(cyclic);
    expect(copy).not.toBe(cyclic);
    expect(copy.self).toBe(copy);
  });
});
