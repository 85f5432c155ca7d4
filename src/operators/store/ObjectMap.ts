import type { ObjectsByKey } from './foldEvent.js';

/**
 * Objects by key, updated in place: what `foldObjects` uses where nobody keeps an old version
 * (the resumer's record of what it delivered), so an update is one hash operation and no
 * allocation. `set` and `delete` return the map itself.
 *
 * @example
 * const delivered = foldObjects(new ObjectMap<V1Pod>(), added(pod('a', '3')), defaultKey);
 * delivered.get('default/a'); // pod a@3
 */
export class ObjectMap<T> implements ObjectsByKey<T, ObjectMap<T>> {
  readonly #objects = new Map<string, T>();

  get size(): number {
    return this.#objects.size;
  }

  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  set(key: string, object: T): this {
    this.#objects.set(key, object);
    return this;
  }

  delete(key: string): this {
    this.#objects.delete(key);
    return this;
  }

  entries(): IterableIterator<[string, T]> {
    return this.#objects.entries();
  }
}
