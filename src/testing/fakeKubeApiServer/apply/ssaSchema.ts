import type { Field, Schema } from '../patchSchemas.js';
import { schemaFor } from '../patchSchemas.js';

/**
 * What server-side apply needs to know of a field (structured-merge-diff's schema, cut down):
 * - `struct`: named fields; the struct itself is never owned, only what is below it;
 * - `map`: free-form keys (labels, a custom resource's fields), each key owned on its own;
 * - `list`: `map` items identified by `keys`, `set` of scalars, or `atomic` (owned whole);
 * - `scalar` (and atomic maps): owned whole.
 */
export type SsaType =
  | { kind: 'scalar' }
  | { kind: 'struct'; fields: Record<string, SsaType>; other: SsaType }
  | { kind: 'map'; elem: SsaType; atomic?: boolean }
  | { kind: 'list'; listType: 'atomic' | 'set' | 'map'; keys: string[]; elem: SsaType }
  | { kind: 'deduced'; builtin: boolean };

export const SCALAR: SsaType = { kind: 'scalar' };
/** A custom resource without a schema: maps are granular, lists atomic (as `deduced` in SMD). */
export const DEDUCED: SsaType = { kind: 'deduced', builtin: false };
/** A field of a built-in kind the tables below do not name: maps are structs, lists atomic. */
const BUILTIN_OTHER: SsaType = { kind: 'deduced', builtin: true };
const STRING_MAP: SsaType = { kind: 'map', elem: SCALAR };
const ATOMIC_MAP: SsaType = { kind: 'map', elem: SCALAR, atomic: true };

/**
 * The list-map keys of server-side apply where they differ from the strategic-merge key
 * (`x-kubernetes-list-map-keys` of the built-in types): ports are keyed with their protocol.
 */
const SSA_KEYS: Record<string, string[]> = {
  containerPort: ['containerPort', 'protocol'],
  port: ['port', 'protocol'],
  topologyKey: ['topologyKey', 'whenUnsatisfiable'],
};

/** Default values of list-map keys: a port without a protocol is keyed as TCP. */
export const KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

/** Fields of built-in kinds that are free-form maps or atomic wherever they appear. */
const NAMED: Record<string, SsaType> = {
  labels: STRING_MAP,
  annotations: STRING_MAP,
  data: STRING_MAP,
  binaryData: STRING_MAP,
  stringData: STRING_MAP,
  nodeSelector: STRING_MAP,
  // metav1.LabelSelector is `x-kubernetes-map-type: atomic`.
  selector: ATOMIC_MAP,
};

function fromField(f: Field | undefined, name: string): SsaType {
  if (f === undefined) return NAMED[name] ?? BUILTIN_OTHER;
  if (f.primitiveMerge) return { kind: 'list', listType: 'set', keys: [], elem: SCALAR };
  if (f.mergeKey !== undefined) {
    const keys = SSA_KEYS[f.mergeKey] ?? [f.mergeKey];
    return { kind: 'list', listType: 'map', keys, elem: fromSchema(f.of) };
  }
  return fromSchema(f.of);
}

function fromSchema(schema: Schema | undefined): SsaType {
  const fields: Record<string, SsaType> = { ...NAMED };
  for (const [name, f] of Object.entries(schema ?? {})) fields[name] = fromField(f, name);
  return { kind: 'struct', fields, other: BUILTIN_OTHER };
}

/** The built-in kinds' apply schemas, made once each (read only, as every SsaType). */
const builtinTypes = new Map<string, SsaType>();

/**
 * The apply schema of a built-in kind, made from its strategic-merge keys (patchSchemas): the
 * lists that merge by key are list-maps, `finalizers` a set, other lists atomic. Made once per
 * kind: every write of a built-in kind tracks its fields with it (a fresh one per write was
 * ~4% of the server's CPU on label patches).
 */
export function builtinSsaType(kind: string): SsaType {
  let type = builtinTypes.get(kind);
  if (type === undefined) {
    type = makeBuiltinSsaType(kind);
    builtinTypes.set(kind, type);
  }
  return type;
}

function makeBuiltinSsaType(kind: string): SsaType {
  const type = fromSchema(schemaFor(kind)) as Extract<SsaType, { kind: 'struct' }>;
  // A Service's selector is a plain map (not a LabelSelector).
  if (kind === 'Service') {
    const spec = type.fields.spec as Extract<SsaType, { kind: 'struct' }>;
    type.fields.spec = { ...spec, fields: { ...spec.fields, selector: STRING_MAP } };
  }
  return type;
}

type OpenApi = Record<string, unknown>;

/** The apply schema of a CRD's `openAPIV3Schema` (its `x-kubernetes-list-type`/`-map-keys`). */
export function openApiSsaType(schema: unknown): SsaType {
  if (schema === null || typeof schema !== 'object') return DEDUCED;
  const s = schema as OpenApi;
  if (s['x-kubernetes-int-or-string'] === true || s['x-kubernetes-embedded-resource'] === true) {
    return SCALAR;
  }
  if (s.type === 'array') {
    const listType = s['x-kubernetes-list-type'];
    const elem = openApiSsaType(s.items);
    if (listType === 'map') {
      const keys = s['x-kubernetes-list-map-keys'];
      return {
        kind: 'list',
        listType: 'map',
        keys: Array.isArray(keys) ? keys.map(String) : [],
        elem,
      };
    }
    if (listType === 'set') return { kind: 'list', listType: 'set', keys: [], elem };
    return { kind: 'list', listType: 'atomic', keys: [], elem };
  }
  if (s.type === 'object' || s.properties !== undefined) {
    if (s['x-kubernetes-map-type'] === 'atomic') return { kind: 'map', elem: SCALAR, atomic: true };
    const props = s.properties as Record<string, unknown> | undefined;
    const additional = s.additionalProperties;
    if (props === undefined) {
      if (additional !== undefined && typeof additional === 'object') {
        return { kind: 'map', elem: openApiSsaType(additional) };
      }
      return DEDUCED;
    }
    const fields: Record<string, SsaType> = {};
    for (const [k, v] of Object.entries(props)) fields[k] = openApiSsaType(v);
    return { kind: 'struct', fields, other: DEDUCED };
  }
  return s.type === undefined ? DEDUCED : SCALAR;
}

/** The root of any object: metadata typed as the built-in kinds' ObjectMeta, the rest `body`. */
export function withObjectMeta(body: SsaType): SsaType {
  const metadata = (fromSchema(schemaFor('')) as Extract<SsaType, { kind: 'struct' }>).fields
    .metadata;
  const base = body.kind === 'struct' ? body : { kind: 'struct' as const, fields: {}, other: body };
  return { ...base, fields: { ...base.fields, metadata } };
}

/** What a field of `type` holds under `name` (a struct's field, a map's value). */
export function childType(type: SsaType, name: string): SsaType {
  if (type.kind === 'struct') return type.fields[name] ?? type.other;
  if (type.kind === 'map') return type.elem;
  return type;
}

/** Whether each key of a value of `type` is owned on its own (a map, not a struct). */
export function keysAreMembers(type: SsaType, name: string): boolean {
  if (type.kind === 'map') return true;
  if (type.kind === 'struct')
    return type.fields[name] === undefined && type.other.kind === 'deduced' && !type.other.builtin;
  return type.kind === 'deduced' && !type.builtin;
}

/** The effective shape of `type` for `value`: deduced types take the shape of the value. */
export function resolve(type: SsaType, value: unknown): SsaType {
  if (type.kind !== 'deduced') return type;
  if (Array.isArray(value)) return { kind: 'list', listType: 'atomic', keys: [], elem: type };
  if (value !== null && typeof value === 'object') {
    return type.builtin
      ? { kind: 'struct', fields: NAMED, other: BUILTIN_OTHER }
      : { kind: 'map', elem: DEDUCED };
  }
  return SCALAR;
}
