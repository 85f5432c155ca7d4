// The member the sharder's hash ring gives each key, for bench/sharding.bench.ts to tell when a
// rebalance is over. A copy of src/controller/sharding/hashRing.ts (benches use the library
// through its public entries only): if the two ever differ, the bench never sees a rebalance
// end and reports NaN.

function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** `key`'s member on the ring of `members` (400 points each, ties to the smaller identity). */
export function ringOwners(members: string[]): (key: string) => string | undefined {
  const entries: Array<[number, string]> = [];
  for (const member of new Set(members)) {
    for (let i = 0; i < 400; i++) entries.push([hash32(`${member}#${i}`), member]);
  }
  entries.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return (key) => {
    if (entries.length === 0) return undefined;
    const h = hash32(key);
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entries[mid]![0] < h) lo = mid + 1;
      else hi = mid;
    }
    return entries[lo === entries.length ? 0 : lo]![1];
  };
}
