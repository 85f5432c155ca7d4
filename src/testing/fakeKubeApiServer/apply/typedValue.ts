import { jsonEqual } from '../jsonEqual.js';
import { field, mapKey, PathSet, setValue } from './fieldPath.js';
import type { FieldPath, PathElement } from './fieldPath.js';
import { childType, KEY_DEFAULTS, keysAreMembers, resolve } from './ssaSchema.js';
import type { SsaType } from './ssaSchema.js';

type Json = unknown;
type JsonMap = Record<string, Json>;

/** Whether `v` is a JSON object (not null, not an array). */
export function isMap(v: Json): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The path element of a list item (list-map keys, with their defaults; a set's value). */
function itemElement(type: Extract<SsaType, { kind: 'list' }>, item: Json, i: number): string {
  if (type.listType === 'set') return setValue(item);
  if (type.listType === 'map' && isMap(item) && type.keys.length > 0) {
    const keyed: JsonMap = {};
    for (const k of type.keys) keyed[k] = item[k] ?? KEY_DEFAULTS[k];
    return mapKey(type.keys, keyed);
  }
  return `i:${i}`;
}

/** The items of a granular list by their element (repeated items: the first one counts). */
function indexItems(type: Extract<SsaType, { kind: 'list' }>, list: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  if (!Array.isArray(list)) return out;
  list.forEach((item, i) => {
    const el = itemElement(type, item, i);
    if (!out.has(el)) out.set(el, item);
  });
  return out;
}

/** Whether values of `t` are owned piece by piece (not scalars, atomic lists or maps). */
function granular(t: SsaType): boolean {
  return !(
    t.kind === 'scalar' ||
    (t.kind === 'list' && t.listType === 'atomic') ||
    (t.kind === 'map' && t.atomic === true)
  );
}

/**
 * The fields a value sets, as an applied configuration owns them: leaves, atomic values, list
 * items and map keys (a struct itself is never a member, only what is below it).
 */
export function fieldSet(
  value: Json,
  type: SsaType,
  path: FieldPath = [],
  out = new PathSet(),
): PathSet {
  const t = resolve(type, value);
  if (
    !granular(t) ||
    (t.kind !== 'list' && !isMap(value)) ||
    (t.kind === 'list' && !Array.isArray(value))
  ) {
    if (path.length > 0) out.add(path);
    return out;
  }
  if (t.kind === 'list') {
    for (const [el, item] of indexItems(t, value)) {
      const p = [...path, el];
      out.add(p);
      if (t.listType === 'map') fieldSet(item, t.elem, p, out);
    }
    return out;
  }
  for (const [k, v] of Object.entries(value as JsonMap)) {
    const p = [...path, field(k)];
    fieldSet(v, childType(t, k), p, out);
    if (keysAreMembers(t, k)) out.add(p);
  }
  return out;
}

/** What a write did: fields it added, changed and removed. */
export interface Comparison {
  added: PathSet;
  modified: PathSet;
  removed: PathSet;
}

/**
 * Compares `lhs` (before) and `rhs` (after). A map or struct that appears is itself added
 * (the `"."` of an Update entry), unless `always` says the API's types always hold it.
 */
export function compare(
  lhs: Json,
  rhs: Json,
  type: SsaType,
  always: (path: FieldPath) => boolean,
  path: FieldPath = [],
  out: Comparison = { added: new PathSet(), modified: new PathSet(), removed: new PathSet() },
): Comparison {
  // The same value (a patch shares what it leaves alone with the live object): nothing changed.
  if (lhs === rhs) return out;
  const t = resolve(type, rhs === undefined ? lhs : rhs);
  const shaped = (v: Json): boolean =>
    v === undefined || (t.kind === 'list' ? Array.isArray(v) : isMap(v));
  const empty = (v: Json): boolean =>
    v === undefined ||
    (Array.isArray(v) ? v.length === 0 : isMap(v) && Object.keys(v).length === 0);
  if (!granular(t) || !shaped(lhs) || !shaped(rhs) || (empty(lhs) && empty(rhs))) {
    if (path.length === 0) return out;
    if (lhs === undefined) out.added.add(path);
    else if (rhs === undefined) out.removed.add(path);
    else if (!jsonEqual(lhs, rhs)) out.modified.add(path);
    return out;
  }
  if (path.length > 0 && t.kind !== 'list') {
    if (lhs === undefined && !always(path)) out.added.add(path);
    if (rhs === undefined && !always(path)) out.removed.add(path);
  }
  if (t.kind === 'list') {
    const before = indexItems(t, lhs);
    const after = indexItems(t, rhs);
    for (const el of new Set([...before.keys(), ...after.keys()])) {
      const p = [...path, el];
      const l = before.get(el);
      const r = after.get(el);
      if (!after.has(el)) out.removed.add(p);
      else if (!before.has(el)) out.added.add(p);
      if (t.listType === 'map') compare(l, r, t.elem, always, p, out);
    }
    return out;
  }
  const l = (lhs ?? {}) as JsonMap;
  const r = (rhs ?? {}) as JsonMap;
  for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) {
    // What a patch left alone is the live value itself: no path, no type lookup for it.
    if (l[k] === r[k]) continue;
    compare(l[k], r[k], childType(t, k), always, [...path, field(k)], out);
  }
  return out;
}

/** Merges an applied configuration into the live value: what the configuration sets wins. */
export function merge(live: Json, config: Json, type: SsaType): Json {
  if (config === undefined) return live;
  if (live === undefined) return structuredClone(config);
  const t = resolve(type, config);
  if (!granular(t)) return structuredClone(config);
  if (t.kind === 'list') {
    if (!Array.isArray(live) || !Array.isArray(config)) return structuredClone(config);
    return mergeLists(live, config, t);
  }
  if (!isMap(live) || !isMap(config)) return structuredClone(config);
  const out: JsonMap = { ...live };
  for (const [k, v] of Object.entries(config)) out[k] = merge(live[k], v, childType(t, k));
  return out;
}

/**
 * Merges two granular lists as structured-merge-diff orders them: the configuration's items in
 * its order, the live items it does not name kept where they were.
 */
function mergeLists(live: Json[], config: Json[], t: Extract<SsaType, { kind: 'list' }>): Json[] {
  const lhs = indexItems(t, live);
  const rhs = indexItems(t, config);
  const lOrder = [...lhs.keys()];
  const rOrder = [...rhs.keys()];
  const shared = rOrder.filter((el) => lhs.has(el));
  let next = shared.shift();
  const out: Json[] = [];
  const item = (el: PathElement): Json =>
    t.listType === 'map' ? merge(lhs.get(el), rhs.get(el), t.elem) : rhs.get(el);
  for (let li = 0, ri = 0; li < lOrder.length || ri < rOrder.length;) {
    if (li < lOrder.length && ri < rOrder.length) {
      if (lOrder[li] === rOrder[ri]) {
        out.push(item(lOrder[li]));
        li++;
        ri++;
        next = shared.shift();
        continue;
      }
      if (rhs.has(lOrder[li]) && next !== undefined && next !== lOrder[li]) {
        li++;
        continue;
      }
    }
    if (li < lOrder.length && !rhs.has(lOrder[li])) {
      out.push(structuredClone(lhs.get(lOrder[li])));
      li++;
      continue;
    }
    if (ri >= rOrder.length) {
      li++; // a shared item already merged: nothing left to place it against
      continue;
    }
    const el = rOrder[ri++];
    out.push(item(el));
    if (next === el) next = shared.shift();
  }
  return out;
}

/**
 * Removes the fields at `paths` from `value` (a copy), as structured-merge-diff prunes and then
 * adds back what `owned` holds: a list item or map key at a removed path goes whole, a struct's
 * field only loses its members nobody owns; a map or list left empty goes unless owned (or
 * `always` there).
 */
export function removePaths(
  value: Json,
  paths: PathSet,
  type: SsaType,
  owned: PathSet,
  always: (path: FieldPath) => boolean = () => false,
): Json {
  const above = new Set<string>();
  for (const p of owned.toArray()) {
    for (let i = 1; i < p.length; i++) above.add(JSON.stringify(p.slice(0, i)));
  }
  // A struct the Go types always hold (a Deployment's spec) stays, even empty.
  const keep = (p: FieldPath): boolean => owned.has(p) || above.has(JSON.stringify(p)) || always(p);
  const walk = (v: Json, t0: SsaType, path: FieldPath): Json => {
    const t = resolve(t0, v);
    if (t.kind === 'list' && Array.isArray(v) && granular(t)) {
      const out: Json[] = [];
      v.forEach((item, i) => {
        const p = [...path, itemElement(t, item, i)];
        if (paths.has(p)) return;
        out.push(t.listType === 'map' ? walk(item, t.elem, p) : item);
      });
      return out;
    }
    if (!isMap(v) || !granular(t)) return v;
    const out: JsonMap = {};
    for (const [k, x] of Object.entries(v)) {
      const p = [...path, field(k)];
      // A struct's field survives when someone owns something below it.
      const named = !keysAreMembers(t, k);
      if (paths.has(p) && !(named && above.has(JSON.stringify(p)))) continue;
      const y = walk(x, childType(t, k), p);
      if (!isEmptied(x, y) || keep(p)) out[k] = y;
    }
    return out;
  };
  return walk(value, type, []);
}

/** A map or list that had members and has none after a removal. */
function isEmptied(before: Json, after: Json): boolean {
  if (Array.isArray(before)) return before.length > 0 && (after as Json[]).length === 0;
  if (isMap(before))
    return Object.keys(before).length > 0 && Object.keys(after as JsonMap).length === 0;
  return false;
}
