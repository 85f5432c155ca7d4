/**
 * Appends to a record array that must stay bounded: past `limit` entries the oldest half goes,
 * so appending stays O(1) amortised and the newest entries are always kept.
 */
export function appendBounded<T>(records: T[], entry: T, limit: number): void {
  records.push(entry);
  if (records.length > limit) records.splice(0, records.length - Math.floor(limit / 2));
}
