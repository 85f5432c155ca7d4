import type { Field, Schema } from './patchSchemas.js';

type Json = unknown;
type JsonMap = Record<string, Json>;

const ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

function isMap(v: Json): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A strategic merge patch, as kube-apiserver applies it to the built-in kinds: maps merge
 * (`null` removes a key), lists named in the kind's schema merge by their key (`containers` by
 * `name`, `ports` by `containerPort`...) or as sets (`finalizers`), other lists are replaced.
 * Directives: `$patch: replace|delete` (maps and list items), `$retainKeys`,
 * `$setElementOrder/<list>` (what `kubectl apply` sends) and `$deleteFromPrimitiveList/<list>`.
 *
 * @example
 * strategicMerge(pod, { spec: { containers: [{ name: 'main', image: 'nginx:2' }] } }, schemaFor('Pod'));
 * // the container named main gets the new image; its other fields and containers stay
 */
export function strategicMerge(original: Json, patch: Json, schema: Schema): Json {
  if (!isMap(patch)) return structuredClone(patch);
  return mergeMap(isMap(original) ? original : {}, patch, schema) ?? {};
}

/** Merges `patch` into a copy of `original`; undefined when the patch deletes the map. */
function mergeMap(
  original: JsonMap,
  patch: JsonMap,
  schema: Schema | undefined,
): JsonMap | undefined {
  if (patch.$patch === 'delete') return undefined;
  if (patch.$patch === 'replace') return stripDirectives(patch) as JsonMap;
  const out: JsonMap = { ...original };
  const orders: Array<[string, Json]> = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith(ORDER)) {
      orders.push([key.slice(ORDER.length), value]);
      continue;
    }
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      const gone = Array.isArray(value) ? value : [];
      if (Array.isArray(out[field])) out[field] = out[field].filter((v) => !gone.includes(v));
      continue;
    }
    const field = schema?.[key];
    if (value === null) delete out[key];
    else if (Array.isArray(value)) out[key] = mergeList(out[key], value, field);
    else if (isMap(value)) {
      const merged = mergeMap(isMap(out[key]) ? out[key] : {}, value, field?.of);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else out[key] = value;
  }
  for (const [field, order] of orders) {
    if (Array.isArray(out[field]) && Array.isArray(order)) {
      out[field] = reorder(out[field], order, schema?.[field]?.mergeKey);
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys);
    for (const key of Object.keys(out)) if (!keep.has(key)) delete out[key];
  }
  return out;
}

function mergeList(original: Json, patch: Json[], field: Field | undefined): Json[] {
  const replace = patch.findIndex((i) => isMap(i) && i.$patch === 'replace');
  if (replace >= 0) return patch.filter((_, i) => i !== replace).map(stripDirectives) as Json[];
  const base = Array.isArray(original) ? [...original] : [];
  if (field?.primitiveMerge) {
    for (const v of patch) if (!base.includes(v)) base.push(v);
    return base;
  }
  const key = field?.mergeKey;
  if (key === undefined) return patch.map(stripDirectives) as Json[];
  for (const item of patch) {
    if (!isMap(item)) continue;
    const at = base.findIndex((o) => isMap(o) && o[key] === item[key]);
    if (item.$patch === 'delete') {
      if (at >= 0) base.splice(at, 1);
      continue;
    }
    const merged = mergeMap(at >= 0 ? (base[at] as JsonMap) : {}, item, field?.of) ?? {};
    if (at >= 0) base[at] = merged;
    else base.push(merged);
  }
  return base;
}

/** Orders `list` as `order` says (items it does not name keep their order, after the others). */
function reorder(list: Json[], order: Json[], key: string | undefined): Json[] {
  const id = (v: Json): Json => (key !== undefined && isMap(v) ? v[key] : v);
  const rank = new Map(order.map((o, i) => [id(o), i]));
  const ranked = list.map((item, i) => ({ item, r: rank.get(id(item)) ?? order.length + i }));
  return ranked.sort((a, b) => a.r - b.r).map((x) => x.item);
}

/** A copy without `$patch`/`$retainKeys`/`$setElementOrder`... directives, at any depth. */
function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isMap(v)) return v;
  const out: JsonMap = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x);
  return out;
}
