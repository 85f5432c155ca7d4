/**
 * A bounded ring of items with increasing `rv`, oldest first. Pushing into a full ring evicts the
 * oldest item and returns it.
 */
export class History<T extends { rv: number }> {
  private items: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<T | undefined>(Math.max(0, capacity));
  }

  /** Appends `item`; returns the evicted oldest item when the ring was full. */
  push(item: T): T | undefined {
    if (this.capacity === 0) return item;
    if (this.count < this.capacity) {
      this.items[(this.start + this.count) % this.capacity] = item;
      this.count++;
      return undefined;
    }
    const evicted = this.items[this.start];
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    return evicted;
  }

  private at(i: number): T {
    return this.items[(this.start + i) % this.capacity] as T;
  }

  /** Items with `rv > after`, oldest first. */
  since(after: number): T[] {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).rv <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: T[] = [];
    for (let i = lo; i < this.count; i++) out.push(this.at(i));
    return out;
  }

  clear(): void {
    this.items = new Array<T | undefined>(Math.max(0, this.capacity));
    this.start = 0;
    this.count = 0;
  }
}
