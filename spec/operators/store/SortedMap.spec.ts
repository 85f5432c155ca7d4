import { describe, expect, it } from '@jest/globals';
import { SortedMap } from '../../../src/operators/store/SortedMap.js';
import { mulberry32 } from '../../support/seededRandom.js';

function sortedValues(model: Map<string, number>): number[] {
  return [...model.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((k) => model.get(k)!);
}

describe('SortedMap', () => {
  it('starts empty', () => {
    const map = SortedMap.empty<number>();
    expect(map.size).toBe(0);
    expect(map.get('a')).toBeUndefined();
    expect(map.values()).toEqual([]);
    expect([...map.entries()]).toEqual([]);
  });

  it('sets, replaces and deletes, keeping keys sorted', () => {
    const map = SortedMap.empty<number>().set('b', 2).set('c', 3).set('a', 1).set('b', 20);
    expect(map.size).toBe(3);
    expect(map.get('b')).toBe(20);
    expect(map.get('c')).toBe(3);
    expect(map.values()).toEqual([1, 20, 3]);
    expect([...map.entries()]).toEqual([
      ['a', 1],
      ['b', 20],
      ['c', 3],
    ]);
    const smaller = map.delete('b');
    expect(smaller.size).toBe(2);
    expect(smaller.get('b')).toBeUndefined();
    expect(smaller.values()).toEqual([1, 3]);
  });

  it('returns the same map when nothing changes', () => {
    const value = { v: 1 };
    const map = SortedMap.empty<object>().set('a', value);
    expect(map.set('a', value)).toBe(map);
    expect(map.delete('zz')).toBe(map);
    expect(SortedMap.empty<number>().delete('a').size).toBe(0);
  });

  it('leaves every older version as it was', () => {
    const versions: SortedMap<number>[] = [SortedMap.empty()];
    for (let i = 0; i < 3000; i++) {
      const last = versions[versions.length - 1]!;
      versions.push(i % 3 === 2 ? last.delete(`k${i - 1}`) : last.set(`k${i}`, i));
    }
    // Version n holds exactly what the first n operations made, however many came after.
    const model = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      if (i % 3 === 2) model.delete(`k${i - 1}`);
      else model.set(`k${i}`, i);
      if (i % 250 === 0) {
        expect(versions[i + 1]!.values()).toEqual(sortedValues(model));
        expect(versions[i + 1]!.size).toBe(model.size);
      }
    }
  });

  it.each([1, 2, 3])('matches a Map under random sets and deletes (seed %i)', (seed) => {
    const next = mulberry32(seed);
    let map = SortedMap.empty<number>();
    const model = new Map<string, number>();
    // Grow past three levels, shrink to nothing, grow again: splits, joins, redistributions
    // and root collapses all happen, in leaves and in branches.
    const phases = [
      { steps: 6000, keys: 4000, deletes: 0.2 },
      { steps: 9000, keys: 4000, deletes: 0.9 },
      { steps: 3000, keys: 300, deletes: 0.4 },
    ];
    for (const { steps, keys, deletes } of phases) {
      for (let i = 0; i < steps; i++) {
        const key = `ns-${Math.floor(next() * 7)}/pod-${Math.floor(next() * keys)}`;
        if (next() < deletes) {
          map = map.delete(key);
          model.delete(key);
        } else {
          map = map.set(key, i);
          model.set(key, i);
        }
        if (i % 100 === 0) expect(map.size).toBe(model.size);
        if (i % 500 === 0) map.checkInvariants();
      }
      map.checkInvariants();
      expect(map.values()).toEqual(sortedValues(model));
      expect([...map.entries()].map(([, value]) => value)).toEqual(map.values());
      for (const [key, value] of model) expect(map.get(key)).toBe(value);
      expect(map.get('ns-9/absent')).toBeUndefined();
    }
  });

  it('copies only the path to one leaf per update and shares every other node (O(log n))', () => {
    type Node = { children?: readonly Node[] };
    const rootOf = (map: SortedMap<number>) => (map as unknown as { root: Node }).root;
    const nodesOf = (map: SortedMap<number>): Node[] => {
      const out: Node[] = [];
      const visit = (node: Node) => {
        out.push(node);
        node.children?.forEach(visit);
      };
      visit(rootOf(map));
      return out;
    };
    let map = SortedMap.empty<number>();
    for (let i = 0; i < 100_000; i++) map = map.set(`k${String(i).padStart(6, '0')}`, i);
    let depth = 1;
    for (let n = rootOf(map); n.children; n = n.children[0]!) depth++;
    const shared = new Set(nodesOf(map));
    const copied = (next: SortedMap<number>) => nodesOf(next).filter((n) => !shared.has(n)).length;

    expect(depth).toBeGreaterThanOrEqual(4);
    expect(copied(map.set('k050000', -1))).toBe(depth);
    // A split, or a join with a neighbour, adds at most one more node per level (and a root).
    expect(copied(map.set('k050000x', 1))).toBeLessThanOrEqual(2 * depth + 1);
    expect(copied(map.delete('k050000'))).toBeLessThanOrEqual(2 * depth);
  });

  it.each([1, 2])(
    'lists the values under a prefix in key order, as a filter of all would (seed %i)',
    (seed) => {
      const next = mulberry32(seed);
      let map = SortedMap.empty<number>();
      for (let i = 0; i < 5000; i++) {
        const key = `${'abc'[Math.floor(next() * 3)]}${'xy'[Math.floor(next() * 2)]}/${Math.floor(next() * 2000)}`;
        map = next() < 0.2 ? map.delete(key) : map.set(key, i);
      }
      const entries = [...map.entries()];
      for (const prefix of ['', 'a', 'ax', 'ax/1', 'by/19', 'c', 'cy/', 'd', 'a/', 'ax/99999']) {
        const expected = entries.filter(([key]) => key.startsWith(prefix)).map(([, v]) => v);
        expect(map.valuesWithPrefix(prefix)).toEqual(expected);
      }
      expect(map.valuesWithPrefix('a').length).toBeGreaterThan(100); // spans many leaves
    },
  );

  it('empties completely and keeps working', () => {
    let map = SortedMap.empty<number>();
    for (let i = 0; i < 2000; i++) map = map.set(String(i).padStart(5, '0'), i);
    for (let i = 0; i < 2000; i++) map = map.delete(String(i).padStart(5, '0'));
    map.checkInvariants();
    expect(map.size).toBe(0);
    expect(map.values()).toEqual([]);
    expect(map.set('x', 1).values()).toEqual([1]);
  });

  it('reports a broken invariant', () => {
    let map = SortedMap.empty<number>();
    for (let i = 0; i < 100; i++) map = map.set(String(i).padStart(3, '0'), i);
    const root = (map as unknown as { root: { keys: string[] } }).root;
    root.keys.reverse();
    expect(() => map.checkInvariants()).toThrow(/invariant broken/);
  });
});
