import { describe, expect, it } from '@jest/globals';
import { ObjectMap } from '../../../src/operators/store/ObjectMap.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../../src/types.js';

/** Every entry, in the map's order. */
const entries = <T>(map: ObjectMap<T>): [string, T][] => [...map.entries()];

describe('ObjectMap', () => {
  it('sets, replaces and deletes in place, and iterates in insertion order', () => {
    const map = new ObjectMap<number>();
    expect(map.set('a', 1).set('b', 2).set('c', 3)).toBe(map);
    map.set('b', 20);
    expect(map.delete('a')).toBe(map);
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
    map.set('a', 'a1').set('b', 'b1').delete('a').set('d', 'd1').set('a', 'a2');
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
    for (let i = 0; i < 5000; i++) map.set(`k${i}`, i);
    // Keep every tenth: far more free slots than live keys, which packs them.
    for (let i = 0; i < 5000; i++) if (i % 10 !== 0) map.delete(`k${i}`);
    expect(map.size).toBe(500);
    for (let i = 0; i < 5000; i++) expect(map.get(`k${i}`)).toBe(i % 10 === 0 ? i : undefined);
    map.set('new', -1);
    map.set('k0', -2);
    expect(map.get('new')).toBe(-1);
    expect(map.get('k10')).toBe(10);
    expect(entries(map).slice(0, 2)).toEqual([
      ['k0', -2],
      ['k10', 10],
    ]);
    expect(entries(map).at(-1)).toEqual(['new', -1]);
  });

  it('tells a repeat by the version recorded beside each object, and records anything else', () => {
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
    // Under another key the same version is not a repeat; without a version nothing is.
    expect(map.setUnlessRepeat('default/b', pod('b', '2'), '2')).toBe(true);
    const unversioned = { kind: 'Node', metadata: { name: 'n1' } };
    expect(map.setUnlessRepeat('n1', unversioned, undefined)).toBe(true);
    expect(map.setUnlessRepeat('n1', unversioned, undefined)).toBe(true);
    // `set` records the version too, and a deleted key's slot forgets it.
    map.set('default/c', pod('c', '5'));
    expect(map.setUnlessRepeat('default/c', pod('c', '5'), '5')).toBe(false);
    map.delete('default/c').set('default/d', pod('d', '9'));
    expect(map.setUnlessRepeat('default/c', pod('c', '5'), '5')).toBe(true);
    expect(map.setUnlessRepeat('default/d', pod('d', '9'), '9')).toBe(false);
  });

  it('keeps each version with its object when a mass deletion packs the slots', () => {
    const map = new ObjectMap<KubernetesObject>();
    for (let i = 0; i < 3000; i++) map.set(`k${i}`, pod(`p${i}`, String(i)));
    for (let i = 0; i < 3000; i++) if (i % 10 !== 3) map.delete(`k${i}`);
    for (let i = 3; i < 3000; i += 10) {
      expect(map.setUnlessRepeat(`k${i}`, pod(`p${i}`, String(i)), String(i))).toBe(false);
    }
    expect(map.setUnlessRepeat('k13', pod('p13', '14'), '14')).toBe(true);
  });
});
