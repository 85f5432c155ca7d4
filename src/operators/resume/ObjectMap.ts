/**
 * The resumer's record of what it delivered: the last object and resourceVersion per key,
 * updated in place, one hash lookup per event.
 *
 * The objects are not the values of a `Map`, they sit in an array slot per key, and the `Map`
 * holds the slot's number. A long-lived `Map` whose keys are deleted and added again makes V8
 * rehash it into a new table now and then, and the old table, in old space until the next full
 * collection, still points at the objects it held: every scavenge then keeps them alive and
 * promotes them (DESIGN, Known traps; ~770 bytes promoted per event on the bench's cycling
 * stream, against ~30 with slots). Here an old table points at small integers and keys only,
 * and an object's slot is overwritten in place.
 *
 * Each slot also holds the resourceVersion it was recorded at, so
 * {@link ObjectMap.setUnlessRepeat} tells a repeat without reading the object it replaces
 * (delivered long ago, no longer in the CPU's caches).
 *
 * @example
 * const delivered = new ObjectMap<V1Pod>();
 * delivered.setUnlessRepeat('default/a', podA3, '3'); // true: recorded
 * delivered.get('default/a'); // podA3
 */
export class ObjectMap<T> {
  readonly #slots = new Map<string, number>();
  #objects: (T | undefined)[] = [];
  /** The resourceVersion each slot's object was recorded at. */
  #versions: (string | undefined)[] = [];
  /** Slots of deleted keys, for the next new key. */
  #free: number[] = [];

  get size(): number {
    return this.#slots.size;
  }

  has(key: string): boolean {
    return this.#slots.has(key);
  }

  get(key: string): T | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#objects[slot];
  }

  /**
   * Records `object` at `version` under `key`, unless `key` holds that version already (what a
   * watch that reconnects may send again): then nothing changes and the answer is false. An
   * undefined `version` is never a repeat.
   *
   * @example
   * delivered.setUnlessRepeat('default/a', podA3, '3'); // true: recorded
   * delivered.setUnlessRepeat('default/a', podA3again, '3'); // false: a repeat
   */
  setUnlessRepeat(key: string, object: T, version: string | undefined): boolean {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#objects.length;
      this.#slots.set(key, slot);
    } else if (version !== undefined && this.#versions[slot] === version) {
      return false;
    }
    this.#objects[slot] = object;
    this.#versions[slot] = version;
    return true;
  }

  delete(key: string): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    this.#objects[slot] = undefined;
    this.#versions[slot] = undefined;
    this.#free.push(slot);
    // Memory follows the live keys: after a mass deletion (a namespace gone), pack the slots.
    if (this.#free.length > 1024 && this.#free.length > 3 * this.#slots.size) this.#pack();
  }

  *entries(): IterableIterator<[string, T]> {
    for (const [key, slot] of this.#slots) yield [key, this.#objects[slot] as T];
  }

  /** Renumbers the slots 0..size-1 in insertion order: no free slot left. */
  #pack(): void {
    const objects: T[] = [];
    const versions: (string | undefined)[] = [];
    for (const [key, slot] of this.#slots) {
      this.#slots.set(key, objects.length);
      objects.push(this.#objects[slot] as T);
      versions.push(this.#versions[slot]);
    }
    this.#objects = objects;
    this.#versions = versions;
    this.#free = [];
  }
}
