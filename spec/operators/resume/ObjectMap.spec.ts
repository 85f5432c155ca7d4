import { describe, expect, it } from '@jest/globals';
import { ObjectMap } from '../../../src/operators/resume/ObjectMap.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../../src/types.js';

/** Every entry, in the map's order. */
const entries = <T>(map: ObjectMap<T>): [string, T][] => [...map.entries()];

/** Records `value` under `key` with no version: never a repeat, so always recorded. */
const record = <T>(map: ObjectMap<T>, key: string, value: T): ObjectMap<T> => {
  expect(map.setUnlessRepeat(key, value, undefined)).toBe(true);
  return map;
};

describe('ObjectMap', () => {
  it('records, replaces and deletes in place, and iterates in insertion order', () => {
    const map = new ObjectMap<number>();
    record(record(record(map, 'a', 1), 'b', 2), 'c', 3);
    record(map, 'b', 20);
    map.delete('a');
    map.delete('missing');
    expect(map.size).toBe(2);
    expect(map.get('a')).toBeUndefined();
    expect(map.get('b')).toBe(20);
    expect(entries(map)).toEqual([
      ['b', 20],
      ['c', 3],
    ]);
  });

  it('gives a deleted key slot to the next new key, never to two keys at once', () => {
    const map = new ObjectMap<string>();
    record(record(map, 'a', 'a1'), 'b', 'b1');
    map.delete('a');
    record(record(map, 'd', 'd1'), 'a', 'a2');
    expect(map.get('b')).toBe('b1');
    expect(map.get('d')).toBe('d1');
    expect(map.get('a')).toBe('a2');
    map.delete('d');
    expect(map.get('a')).toBe('a2');
    expect(entries(map)).toEqual([
      ['b', 'b1'],
      ['a', 'a2'],
    ]);
  });

  it('keeps every live key after a mass deletion packs its slots', () => {
    const map = new ObjectMap<number>();
    for (let i = 0; i < 5000; i++) record(map, `k${i}`, i);
    // Keep every tenth: far more free slots than live keys, which packs them.
    for (let i = 0; i < 5000; i++) if (i % 10 !== 0) map.delete(`k${i}`);
    expect(map.size).toBe(500);
    for (let i = 0; i < 5000; i++) expect(map.get(`k${i}`)).toBe(i % 10 === 0 ? i : undefined);
    record(map, 'new', -1);
    record(map, 'k0', -2);
    expect(map.get('new')).toBe(-1);
    expect(map.get('k10')).toBe(10);
    expect(entries(map).slice(0, 2)).toEqual([
      ['k0', -2],
      ['k10', 10],
    ]);
    expect(entries(map).at(-1)).toEqual(['new', -1]);
  });

  it('tells a repeat by the version recorded with each object, and records anything else', () => {
    const map = new ObjectMap<KubernetesObject>();
    const a1 = pod('a', '1');
    expect(map.setUnlessRepeat('default/a', a1, '1')).toBe(true);
    // The same version again (a reconnect sending what it sent) changes nothing.
    expect(map.setUnlessRepeat('default/a', pod('a', '1'), '1')).toBe(false);
    expect(map.get('default/a')).toBe(a1);
    // A new version replaces it, and is what the next check compares with.
    const a2 = pod('a', '2');
    expect(map.setUnlessRepeat('default/a', a2, '2')).toBe(true);
    expect(map.setUnlessRepeat('default/a', pod('a', '1'), '1')).toBe(true);
    expect(map.setUnlessRepeat('default/a', a2, '2')).toBe(true);
    expect(map.setUnlessRepeat('default/a', a2, '2')).toBe(false);
    // The version given is what counts, not the object's own (a transform may drop it).
    const stripped = { kind: 'Pod', metadata: { name: 'e' } };
    expect(map.setUnlessRepeat('default/e', stripped, '7')).toBe(true);
    expect(map.setUnlessRepeat('default/e', stripped, '7')).toBe(false);
    // Under another key the same version is not a repeat; without a version nothing is.
    expect(map.setUnlessRepeat('default/b', pod('b', '2'), '2')).toBe(true);
    const unversioned = { kind: 'Node', metadata: { name: 'n1' } };
    expect(map.setUnlessRepeat('n1', unversioned, undefined)).toBe(true);
    expect(map.setUnlessRepeat('n1', unversioned, undefined)).toBe(true);
    // A deleted key's slot forgets its version, and the next key in it starts afresh.
    map.delete('default/b');
    expect(map.setUnlessRepeat('default/d', pod('d', '2'), '9')).toBe(true);
    expect(map.setUnlessRepeat('default/b', pod('b', '2'), '2')).toBe(true);
    expect(map.setUnlessRepeat('default/d', pod('d', '9'), '9')).toBe(false);
  });

  it('keeps each version with its object when a mass deletion packs the slots', () => {
    const map = new ObjectMap<KubernetesObject>();
    for (let i = 0; i < 3000; i++) map.setUnlessRepeat(`k${i}`, pod(`p${i}`, String(i)), String(i));
    for (let i = 0; i < 3000; i++) if (i % 10 !== 3) map.delete(`k${i}`);
    for (let i = 3; i < 3000; i += 10) {
      expect(map.setUnlessRepeat(`k${i}`, pod(`p${i}`, String(i)), String(i))).toBe(false);
    }
    expect(map.setUnlessRepeat('k13', pod('p13', '14'), '14')).toBe(true);
  });
});
