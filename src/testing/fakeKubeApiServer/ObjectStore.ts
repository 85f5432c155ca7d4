import { versionOf } from '../../objects/versionOf.js';
import { randomUUID } from 'node:crypto';
import { apiVersionOf } from '../../objects/resources.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';
import { cloneObject } from './cloneObject.js';
import { History } from './History.js';
import { kindForPlural } from './kindForPlural.js';
import type { ResourceTypes } from './ResourceTypes.js';

/** A stored object, its JSON (serialised once) and its resourceVersion as a number. */
export interface Entry {
  readonly obj: KubernetesObject;
  readonly json: string;
  readonly rv: number;
}

/** One change of a resource. `prev` is the entry before a MODIFIED or DELETED. */
export interface StoredEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly rv: number;
  readonly key: string;
  readonly entry: Entry;
  readonly prev?: Entry;
}

type StoreListener = (event: StoredEvent) => void;

/** Told of every change of every resource, after the resource's own listeners. */
export type StoreObserver = (id: ResourceRef<unknown>, event: StoredEvent) => void;

/**
 * An error of the server's object API (`create` of an existing object, `update` of a missing one),
 * with the HTTP code and Kubernetes reason the API server would answer.
 *
 * @example
 * try { server.create(pods, pod('a', '1')); } catch (e) {
 *   if (e instanceof FakeKubeApiError && e.code === 409) console.log('exists');
 * }
 */
export class FakeKubeApiError extends Error {
  /** Always `'FakeKubeApiError'`. */
  override readonly name = 'FakeKubeApiError';
  /** The HTTP status the API server would answer with (409, 404, 422). */
  readonly code: number;
  /** The Status reason (`AlreadyExists`, `NotFound`, `Invalid`). */
  readonly reason: string;

  constructor(message: string, code: number, reason: string) {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

/** Map key of an object: namespace and name, sorted like (namespace, name). */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}\u0000${name}`;
}

/** The objects, bounded history and listeners of one resource (group/version/plural). */
export class ResourceStore {
  kind: string;
  readonly apiVersion: string;
  readonly objects = new Map<string, Entry>();
  readonly listeners = new Set<StoreListener>();
  /** Every event with `rv > floor` is in the history; older versions are gone. */
  floor: number;
  private readonly history: History<StoredEvent>;
  private sorted: string[] | undefined;

  constructor(id: ResourceRef<unknown>, kind: string, historySize: number, floor: number) {
    this.kind = kind;
    this.apiVersion = apiVersionOf(id);
    this.history = new History(historySize);
    this.floor = floor;
  }

  /** Applies `event`, keeps it in the history and tells every listener. */
  record(event: StoredEvent): void {
    const evicted = this.history.push(event);
    if (evicted !== undefined) this.floor = evicted.rv;
    if (event.type === 'DELETED') {
      this.objects.delete(event.key);
      this.sorted = undefined;
    } else {
      if (!this.objects.has(event.key)) this.sorted = undefined;
      this.objects.set(event.key, event.entry);
    }
    for (const listener of [...this.listeners]) listener(event);
  }

  /** Keys of the current objects, sorted by (namespace, name). Cached until a key comes or goes. */
  sortedKeys(): string[] {
    this.sorted ??= [...this.objects.keys()].sort(compareKeys);
    return this.sorted;
  }

  /** Events with `rv > after`, oldest first (only meaningful when `after >= floor`). */
  eventsSince(after: number): StoredEvent[] {
    return this.history.since(after);
  }

  /** The objects as they were at `rv` (undone from the history), or undefined when too old. */
  stateAt(rv: number, current: number): Map<string, Entry> | undefined {
    if (rv >= current) return this.objects;
    if (rv < this.floor) return undefined;
    const events = this.history.since(rv);
    if (events.length === 0) return this.objects;
    const state = new Map(this.objects);
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i];
      if (e.type === 'ADDED' || e.prev === undefined) state.delete(e.key);
      else state.set(e.key, e.prev);
    }
    return state;
  }

  /** Forgets the history: versions older than `rv` are gone. */
  expire(rv: number): void {
    this.history.clear();
    this.floor = rv;
  }
}

/** Sorts `ns\0name` keys by (namespace, name). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every resource's store and the global resourceVersion counter (like etcd's revision). */
export class ObjectStore {
  rv = 0;
  /** Versions older than this are gone for every resource (set by `expire`). */
  compacted = 0;
  private readonly resources = new Map<string, ResourceStore>();
  /** Follow every change (the garbage collector does). */
  readonly observers = new Set<StoreObserver>();

  constructor(
    private readonly historySize: number,
    readonly types: ResourceTypes,
  ) {}

  /** The store of a resource, made on first use. */
  resource(id: ResourceRef<unknown>): ResourceStore {
    const key = `${id.group}/${versionOf(id)}/${id.plural}`;
    let store = this.resources.get(key);
    if (store === undefined) {
      const kind = this.types.lookup(id)?.kind ?? kindForPlural(id.plural);
      store = new ResourceStore(id, kind, this.historySize, this.compacted);
      this.resources.set(key, store);
    }
    return store;
  }

  create(id: ResourceRef<unknown>, input: KubernetesObject): KubernetesObject {
    return clone(this.createEntry(id, input).obj);
  }

  /**
   * `create`, answering the stored entry itself (not a copy): the server's own write handlers
   * send its JSON and only read its object.
   */
  createEntry(id: ResourceRef<unknown>, input: KubernetesObject): Entry {
    const store = this.resource(id);
    const { namespace, name } = identify(store, input);
    const key = objectKey(namespace, name);
    if (store.objects.has(key)) {
      throw new FakeKubeApiError(`${id.plural} "${name}" already exists`, 409, 'AlreadyExists');
    }
    const obj = this.stamp(store, input);
    obj.metadata!.uid ??= randomUUID();
    // RFC 3339 in whole seconds, as the API server writes it.
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    obj.metadata!.creationTimestamp ??= now as unknown as Date;
    const known = this.types.lookup(id) !== undefined;
    if (input.kind !== undefined && store.objects.size === 0 && !known) store.kind = input.kind;
    const entry = toEntry(obj, this.rv);
    this.record(id, store, { type: 'ADDED', rv: this.rv, key, entry });
    return entry;
  }

  update(id: ResourceRef<unknown>, input: KubernetesObject): KubernetesObject {
    return clone(this.updateEntry(id, input).obj);
  }

  /** `update`, answering the stored entry itself (see createEntry). */
  updateEntry(id: ResourceRef<unknown>, input: KubernetesObject): Entry {
    const store = this.resource(id);
    const { namespace, name } = identify(store, input);
    const key = objectKey(namespace, name);
    const prev = store.objects.get(key);
    if (prev === undefined) {
      throw new FakeKubeApiError(`${id.plural} "${name}" not found`, 404, 'NotFound');
    }
    const obj = this.stamp(store, input);
    obj.metadata!.uid ??= prev.obj.metadata?.uid;
    obj.metadata!.creationTimestamp ??= prev.obj.metadata?.creationTimestamp;
    const entry = toEntry(obj, this.rv);
    this.record(id, store, { type: 'MODIFIED', rv: this.rv, key, entry, prev });
    return entry;
  }

  delete(
    id: ResourceRef<unknown>,
    namespace: string | undefined,
    name: string,
  ): KubernetesObject | undefined {
    const store = this.resource(id);
    const key = objectKey(namespace, name);
    const prev = store.objects.get(key);
    if (prev === undefined) return undefined;
    const obj = this.stamp(store, prev.obj);
    const entry = toEntry(obj, this.rv);
    this.record(id, store, { type: 'DELETED', rv: this.rv, key, entry, prev });
    return clone(obj);
  }

  get(
    id: ResourceRef<unknown>,
    namespace: string | undefined,
    name: string,
  ): KubernetesObject | undefined {
    const entry = this.resource(id).objects.get(objectKey(namespace, name));
    return entry === undefined ? undefined : clone(entry.obj);
  }

  list(id: ResourceRef<unknown>, namespace?: string): KubernetesObject[] {
    const store = this.resource(id);
    const out: KubernetesObject[] = [];
    for (const key of store.sortedKeys()) {
      const entry = store.objects.get(key)!;
      if (namespace === undefined || (entry.obj.metadata?.namespace ?? '') === namespace) {
        out.push(clone(entry.obj));
      }
    }
    return out;
  }

  /** Compacts like etcd: the version advances by one and every version handed out before is gone. */
  expire(): void {
    this.rv++;
    this.compacted = this.rv;
    for (const store of this.resources.values()) store.expire(this.rv);
  }

  private record(id: ResourceRef<unknown>, store: ResourceStore, event: StoredEvent): void {
    store.record(event);
    for (const observer of [...this.observers]) observer(id, event);
  }

  /** A copy of `input` with kind, apiVersion and the next resourceVersion. */
  private stamp(store: ResourceStore, input: KubernetesObject): KubernetesObject {
    const obj = clone(input);
    obj.kind ??= store.kind;
    obj.apiVersion ??= store.apiVersion;
    this.rv++;
    obj.metadata = { ...obj.metadata, resourceVersion: String(this.rv) };
    return obj;
  }
}

function identify(
  store: ResourceStore,
  obj: KubernetesObject,
): { namespace?: string; name: string } {
  const name = obj.metadata?.name;
  if (typeof name !== 'string' || name === '') {
    throw new FakeKubeApiError(
      `${store.kind} is invalid: metadata.name: Required value`,
      422,
      'Invalid',
    );
  }
  return { namespace: obj.metadata?.namespace, name };
}

function toEntry(obj: KubernetesObject, rv: number): Entry {
  return { obj, json: JSON.stringify(obj), rv };
}

function clone<T>(obj: T): T {
  return cloneObject(obj);
}
