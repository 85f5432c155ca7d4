import { describe, expect, it } from '@jest/globals';
import { ObjectMap } from '../../../src/operators/store/ObjectMap.js';

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
});
