import { metadataOf } from '../../objects/metadataOf.js';
import type { ObjectsByKey } from './foldEvent.js';

/**
 * Objects by key, updated in place: what `foldObjects` uses where nobody keeps an old version
 * (the resumer's record of what it delivered), so an update is one hash operation and no
 * allocation. `set` and `delete` return the map itself.
 *
 * The objects are not the values of a `Map`, they sit in an array slot per key, and the `Map`
 * holds the slot's number. A long-lived `Map` whose keys are deleted and added again makes V8
 * rehash it into a new table now and then, and the old table, in old space until the next full
 * collection, still points at the objects it held: every scavenge then keeps them alive and
 * promotes them (DESIGN, Known traps; ~770 bytes promoted per event on the bench's cycling
 * stream, against ~30 with slots). Here an old table points at small integers and keys only,
 * and an object's slot is overwritten in place.
 *
 * Each slot also holds its object's resourceVersion, so {@link ObjectMap.setUnlessRepeat} tells a
 * repeat without reading the object it replaces (delivered long ago, no longer in the CPU's
 * caches) and with one hash lookup for the check and the update.
 *
 * @example
 * const delivered = foldObjects(new ObjectMap<V1Pod>(), added(pod('a', '3')), defaultKey);
 * delivered.get('default/a'); // pod a@3
 */
export class ObjectMap<T> implements ObjectsByKey<T, ObjectMap<T>> {
  readonly #slots = new Map<string, number>();
  #objects: (T | undefined)[] = [];
  /** The resourceVersion of the object in the same slot. */
  #versions: (string | undefined)[] = [];
  /** Slots of deleted keys, for the next new key. */
  #free: number[] = [];

  get size(): number {
    return this.#slots.size;
  }

  get(key: string): T | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#objects[slot];
  }

  set(key: string, object: T): this {
    const slot = this.#slots.get(key);
    if (slot === undefined) this.#add(key, object);
    else this.#replace(slot, object);
    return this;
  }

  /**
   * `set(key, object)`, unless the object under `key` is at `version` already (what a watch that
   * reconnects may send again): then nothing changes and the answer is false. An undefined
   * `version` is never a repeat.
   *
   * @example
   * delivered.setUnlessRepeat('default/a', podA3, '3'); // true: recorded
   * delivered.setUnlessRepeat('default/a', podA3again, '3'); // false: a repeat
   */
  setUnlessRepeat(key: string, object: T, version: string | undefined): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) {
      this.#add(key, object);
      return true;
    }
    if (version !== undefined && this.#versions[slot] === version) return false;
    this.#replace(slot, object);
    return true;
  }

  #add(key: string, object: T): void {
    const free = this.#free.pop();
    const slot = free ?? this.#objects.length;
    this.#slots.set(key, slot);
    this.#objects[slot] = object;
    this.#versions[slot] = metadataOf(object)?.resourceVersion;
  }

  #replace(slot: number, object: T): void {
    this.#objects[slot] = object;
    this.#versions[slot] = metadataOf(object)?.resourceVersion;
  }

  delete(key: string): this {
    const slot = this.#slots.get(key);
    if (slot === undefined) return this;
    this.#slots.delete(key);
    this.#objects[slot] = undefined;
    this.#versions[slot] = undefined;
    this.#free.push(slot);
    // Memory follows the live keys: after a mass deletion (a namespace gone), pack the slots.
    if (this.#free.length > 1024 && this.#free.length > 3 * this.#slots.size) this.#pack();
    return this;
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
