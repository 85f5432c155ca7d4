import { fromFieldsV1, PathSet, toFieldsV1 } from './fieldPath.js';
import type { FieldPath, FieldsV1 } from './fieldPath.js';

/** One `metadata.managedFields` entry as the API returns it. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldsV1;
  subresource?: string;
}

/** A manager's entry, its fields as a set. */
export interface Manager {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: PathSet;
}

/** Managers by identifier (manager, operation, subresource, and apiVersion for updaters). */
export type Managers = Map<string, Manager>;

/**
 * The identifier of an entry, as the API server keys them: an applier has one entry whatever
 * apiVersion it applies with, an updater one per apiVersion.
 */
export function managerId(
  m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  return JSON.stringify([
    m.manager,
    m.operation,
    m.operation === 'Apply' ? '' : m.apiVersion,
    m.subresource ?? '',
  ]);
}

/** How many decoded `fieldsV1` are remembered (the cache starts afresh past it). */
const DECODED_MAX = 10_000;
/**
 * A key of a `fieldsV1` made only of plain objects (its JSON), undefined for anything else (a
 * value `undefined`, a string...): such a one is decoded afresh, so that the cache never answers
 * for a value fromFieldsV1 would read otherwise.
 */
function cacheKey(node: unknown): string | undefined {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const proto = Object.getPrototypeOf(node) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  let key = '{';
  for (const [k, v] of Object.entries(node)) {
    const child = cacheKey(v);
    if (child === undefined) return undefined;
    key += `${JSON.stringify(k)}:${child},`;
  }
  return `${key}}`;
}

/** Sets by the key of the `fieldsV1` they were decoded from. */
const decoded = new Map<string, PathSet>();
/** The canonical `fieldsV1` of a set encoded before, frozen: entries share it. */
const encoded = new WeakMap<PathSet, FieldsV1>();

function deepFreeze(fields: FieldsV1): FieldsV1 {
  for (const child of Object.values(fields)) deepFreeze(child);
  return Object.freeze(fields);
}

/**
 * The set of a `fieldsV1`, undefined when it is not one. Every write decodes the managers of the
 * object it changes and encodes them again, though most keep the same fields (a label patch
 * changes one manager's set at most): a set is decoded once per distinct `fieldsV1` and shared,
 * as no one changes a PathSet once made (its operations answer new sets).
 */
function decodeSet(fields: unknown): PathSet | undefined {
  const key = cacheKey(fields);
  if (key === undefined) return fromFieldsV1(fields);
  let set = decoded.get(key);
  if (set === undefined) {
    set = fromFieldsV1(fields);
    if (set === undefined) return undefined;
    if (decoded.size >= DECODED_MAX) decoded.clear();
    decoded.set(key, set);
  }
  return set;
}

/**
 * The canonical `fieldsV1` of a set (toFieldsV1), kept per set and shared, frozen: the store
 * copies what it keeps, and a change in place would throw rather than reach another entry.
 */
function encodeSet(set: PathSet): FieldsV1 {
  let fields = encoded.get(set);
  if (fields === undefined) {
    fields = deepFreeze(toFieldsV1(set));
    encoded.set(set, fields);
  }
  return fields;
}

/** The managers of `managedFields`; undefined when an entry is not valid (the server resets). */
export function decodeManagers(entries: unknown): Managers | undefined {
  const out: Managers = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) return undefined;
  for (const e of entries as Array<Partial<ManagedFieldsEntry>>) {
    if (e === null || typeof e !== 'object') return undefined;
    if (e.operation !== 'Apply' && e.operation !== 'Update') return undefined;
    if (typeof e.apiVersion !== 'string' || e.apiVersion === '') return undefined;
    if (e.fieldsType !== 'FieldsV1') return undefined;
    const set = decodeSet(e.fieldsV1 ?? {});
    if (set === undefined) return undefined;
    const m: Manager = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      set,
    };
    if (typeof e.time === 'string') m.time = e.time;
    if (typeof e.subresource === 'string' && e.subresource !== '') m.subresource = e.subresource;
    out.set(managerId(m), m);
  }
  return out;
}

/** Whether a request's managedFields ask for a reset: `[]` or `[{}]`. */
export function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const [only] = entries as unknown[];
  return (
    entries.length === 1 &&
    only !== null &&
    typeof only === 'object' &&
    Object.keys(only).length === 0
  );
}

/** The `managedFields` of managers, in the API server's order; undefined when there are none. */
export function encodeManagers(managers: Managers): ManagedFieldsEntry[] | undefined {
  const list = [...managers.values()].filter((m) => m.set.size > 0);
  if (list.length === 0) return undefined;
  const seconds = (m: Manager): number => (m.time === undefined ? 0 : Date.parse(m.time) / 1000);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  list.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p) - seconds(q) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return list.map((m) => {
    const e: ManagedFieldsEntry = {
      manager: m.manager,
      operation: m.operation,
      apiVersion: m.apiVersion,
      ...(m.time !== undefined ? { time: m.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: encodeSet(m.set),
    };
    if (m.subresource !== undefined) e.subresource = m.subresource;
    return e;
  });
}

/** Fields the API server never tracks (it sets them itself). */
const UNTRACKED_META = new Set([
  'f:name',
  'f:namespace',
  'f:creationTimestamp',
  'f:selfLink',
  'f:uid',
  'f:clusterName',
  'f:generation',
  'f:managedFields',
  'f:resourceVersion',
]);

/** Whether the API server tracks ownership of `path` (not apiVersion, kind, metadata.name...). */
export function tracked(path: FieldPath): boolean {
  const [first, second] = path;
  if (first === 'f:apiVersion' || first === 'f:kind') return false;
  if (first === 'f:metadata') return second !== undefined && !UNTRACKED_META.has(second);
  return true;
}

/** A copy of the managers, each with its own set (so a failed apply changes nothing). */
export function copyManagers(managers: Managers): Managers {
  return new Map([...managers].map(([id, m]) => [id, { ...m, set: new PathSet(m.set.toArray()) }]));
}

/** RFC 3339 in whole seconds, as managedFields times are written. */
export function nowRfc3339(): string {
  // Made once per second: every write asks for it.
  const ms = Date.now();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTime = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastTime;
}

let lastSecond = NaN;
let lastTime = '';
