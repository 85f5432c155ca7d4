import type { ObjectsByKey } from './foldEvent.js';
import { SortedMap } from './SortedMap.js';

/**
 * What an index files an object under: one value, several (each files it once), or none.
 *
 * @example
 * const byNode: Indexer<V1Pod> = (pod) => pod.spec?.nodeName;
 * const byLabelValues: Indexer<V1Pod> = (pod) => Object.values(pod.metadata?.labels ?? {});
 */
export type Indexer<T> = (object: T) => string | readonly string[] | undefined;

/** Named indexers, as `toStore({ indexes })` takes them. */
export type Indexers<T, I extends string = string> = { readonly [N in I]: Indexer<T> };

/** The indexers of one store, set once by `toStore` and shared by all its snapshots. */
class IndexSpec {
  readonly positions: ReadonlyMap<string, number>;
  readonly indexers: readonly Indexer<unknown>[];

  constructor(indexers: Indexers<unknown>) {
    const names = Object.keys(indexers);
    this.positions = new Map(names.map((name, i) => [name, i]));
    this.indexers = names.map((name) => indexers[name]!);
  }
}

/**
 * The indexes of one store snapshot, persistent like its objects: one sorted map per index from
 * `(value, key)` to the object, so the objects under a value are a run of adjacent entries in key
 * order. An update costs O(log n) per value an object is filed under, and copies only the paths
 * it changes; a snapshot's indexes never change once it is emitted.
 */
export class StoreIndexes<T> {
  static readonly NONE = new StoreIndexes<never>(new IndexSpec({}), []);

  static of<T>(indexers: Indexers<T> | undefined): StoreIndexes<T> {
    if (!indexers || Object.keys(indexers).length === 0) return StoreIndexes.NONE;
    const spec = new IndexSpec(indexers as Indexers<unknown>);
    return new StoreIndexes(
      spec,
      spec.indexers.map(() => SortedMap.empty()),
    );
  }

  private constructor(
    private readonly spec: IndexSpec,
    /** Per index (in the order of `spec.indexers`), `entryKey(value, key)` to the object. */
    readonly maps: readonly SortedMap<T>[],
  ) {}

  get empty(): boolean {
    return this.maps.length === 0;
  }

  /** The objects filed under `value` in the index `name`, sorted by key. */
  byIndex(name: string, value: string): T[] {
    const position = this.spec.positions.get(name);
    if (position === undefined) throw new TypeError(`Store.byIndex: no index named "${name}"`);
    return this.maps[position]!.valuesWithPrefix(valuePrefix(value));
  }

  /** The indexes after the object under `key` went from `before` to `after` (either absent). */
  update(key: string, before: T | undefined, after: T | undefined): StoreIndexes<T> {
    if (this.maps.length === 0 || before === after) return this;
    let maps: SortedMap<T>[] | undefined;
    this.spec.indexers.forEach((indexer, i) => {
      const map = this.maps[i]!;
      const next = updateIndex(map, indexer as Indexer<T>, key, before, after);
      if (next === map) return;
      maps ??= this.maps.slice();
      maps[i] = next;
    });
    return maps ? new StoreIndexes(this.spec, maps) : this;
  }
}

function updateIndex<T>(
  map: SortedMap<T>,
  indexer: Indexer<T>,
  key: string,
  before: T | undefined,
  after: T | undefined,
): SortedMap<T> {
  const old = before === undefined ? [] : valuesOf(indexer, before);
  const now = after === undefined ? [] : valuesOf(indexer, after);
  for (const value of old) {
    if (!now.includes(value)) map = map.delete(entryKey(value, key));
  }
  // A value kept is set again: its entry must hold the new object.
  for (const value of now) map = map.set(entryKey(value, key), after as T);
  return map;
}

function valuesOf<T>(indexer: Indexer<T>, object: T): readonly string[] {
  const values = indexer(object);
  if (values === undefined) return [];
  if (typeof values === 'string') return [values];
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) {
    throw new TypeError('toStore: an indexer returns a string, an array of strings or undefined');
  }
  // Each value files the object once, even when the indexer repeats it.
  return values.length < 2 ? values : [...new Set(values)];
}

/**
 * `value` with each NUL written as NUL SOH, then NUL NUL: no encoded value is a prefix of
 * another's encoding, so the prefix of one value never reaches into a different value's entries.
 */
function valuePrefix(value: string): string {
  return `${value.replaceAll('\u0000', '\u0000\u0001')}\u0000\u0000`;
}

function entryKey(value: string, key: string): string {
  return valuePrefix(value) + key;
}

/**
 * A store's objects with their indexes, as one persistent map for the fold: `set` and `delete`
 * update both (the entries moved are those of the object stored, not of the event's) and
 * return a new version, or this one when nothing changed.
 */
export class IndexedObjects<T> implements ObjectsByKey<T, IndexedObjects<T>> {
  static empty<T>(indexes: StoreIndexes<T>): IndexedObjects<T> {
    return new IndexedObjects(SortedMap.empty(), indexes);
  }

  private constructor(
    readonly objects: SortedMap<T>,
    readonly indexes: StoreIndexes<T>,
  ) {}

  /**
   * Objects folded elsewhere with indexes kept up to date with them (by the caller): what a
   * shared watch's indexed store is, over the objects its replay folded once.
   */
  static over<T>(objects: SortedMap<T>, indexes: StoreIndexes<T>): IndexedObjects<T> {
    return new IndexedObjects(objects, indexes);
  }

  get size(): number {
    return this.objects.size;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  set(key: string, object: T): IndexedObjects<T> {
    return this.with(key, object);
  }

  delete(key: string): IndexedObjects<T> {
    return this.with(key, undefined);
  }

  entries(): Iterable<[string, T]> {
    return this.objects.entries();
  }

  private with(key: string, after: T | undefined): IndexedObjects<T> {
    const before = this.indexes.empty ? undefined : this.objects.get(key);
    const objects = after === undefined ? this.objects.delete(key) : this.objects.set(key, after);
    if (objects === this.objects) return this;
    return new IndexedObjects(objects, this.indexes.update(key, before, after));
  }
}
