import type { KeyState } from './KeyState.js';

/** Past this many slots an emptied heap gives its array back instead of keeping it for later. */
const KEEP_CAPACITY = 1024;

/**
 * A binary min-heap of key slots ordered by `at`, then `seq` (first in, first out among equal
 * times). Each slot knows its index, so moving or removing one is O(log n) and a heap holds
 * exactly one entry per key: no stale entries piling up while a debounce restarts.
 *
 * @example
 * const heap = new KeyHeap();
 * heap.push(state);
 * heap.peek()?.at; // the earliest time
 */
export class KeyHeap {
  private items: KeyState[] = [];
  /** The most slots held since the array was last replaced. */
  private peak = 0;

  get size(): number {
    return this.items.length;
  }

  peek(): KeyState | undefined {
    return this.items[0];
  }

  push(state: KeyState): void {
    state.index = this.items.length;
    this.items.push(state);
    if (this.items.length > this.peak) this.peak = this.items.length;
    this.up(state.index);
  }

  pop(): KeyState | undefined {
    const items = this.items;
    const top = items[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    return top;
  }

  remove(state: KeyState): void {
    if (state.index >= 0 && this.items[state.index] === state) this.removeAt(state.index);
  }

  /** Puts a slot whose `at` changed back in order. */
  update(state: KeyState): void {
    this.up(state.index);
    this.down(state.index);
  }

  clear(): void {
    for (const state of this.items) state.index = -1;
    this.items = [];
    this.peak = 0;
  }

  private removeAt(index: number): void {
    const items = this.items;
    const removed = items[index];
    const last = items.pop() as KeyState;
    removed.index = -1;
    if (index < items.length) {
      items[index] = last;
      last.index = index;
      this.up(index);
      this.down(last.index);
    } else if (items.length === 0 && this.peak > KEEP_CAPACITY) {
      // An array keeps its backing store when emptied by pop(): drained, the queue lets it go.
      this.items = [];
      this.peak = 0;
    }
  }

  private up(index: number): void {
    const items = this.items;
    const state = items[index];
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex];
      if (!before(state, parent)) break;
      items[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    items[index] = state;
    state.index = index;
  }

  private down(index: number): void {
    const items = this.items;
    const length = items.length;
    const state = items[index];
    for (;;) {
      let child = 2 * index + 1;
      if (child >= length) break;
      if (child + 1 < length && before(items[child + 1], items[child])) child++;
      if (!before(items[child], state)) break;
      items[index] = items[child];
      items[index].index = index;
      index = child;
    }
    items[index] = state;
    state.index = index;
  }
}

function before(a: KeyState, b: KeyState): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
