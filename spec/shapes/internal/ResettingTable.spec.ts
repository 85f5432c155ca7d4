import { describe, expect, it } from '@jest/globals';
import { ResettingTable } from '../../../src/shapes/internal/ResettingTable.js';

describe('ResettingTable', () => {
  it('keeps values by key, and gives back what it keeps', () => {
    const table = new ResettingTable<object>(100);
    const value = {};
    expect(table.get('a')).toBeUndefined();
    expect(table.set('a', value)).toBe(value);
    expect(table.get('a')).toBe(value);
    expect(table.size).toBe(1);
  });

  it('starts again, empty, when a key would pass its characters', () => {
    const table = new ResettingTable<number>(10);
    table.set('abcd', 1);
    table.set('efgh', 2); // 8 characters
    table.set('ij', 3); // 10: still room
    expect([table.get('abcd'), table.get('efgh'), table.get('ij'), table.size]).toEqual([
      1, 2, 3, 3,
    ]);
    table.set('k', 4); // 11: the table starts again with this key alone
    expect([table.get('abcd'), table.get('ij'), table.get('k'), table.size]).toEqual([
      undefined,
      undefined,
      4,
      1,
    ]);
    // A key longer than the whole room is still kept, alone.
    table.set('x'.repeat(20), 5);
    expect(table.size).toBe(1);
  });
});
