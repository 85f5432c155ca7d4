import type { ServedType as ResourceType } from '../ResourceTypes.js';
import type { Definitions, JsonSchema } from './schemas.js';
import { OBJECT_META } from './schemas.js';
import { attributesOf } from './models.js';

/** The schema of a resource defined without one: any object, as a CRD with no schema. */
export const PERMISSIVE: JsonSchema = {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
};

/** `stable.example.com` → `com.example.stable`: how kube-apiserver names a CRD's definitions. */
export function customDefinitionName(t: ResourceType): string {
  return `${t.group.split('.').reverse().join('.')}.${t.version}.${t.kind}`;
}

/** Rewrites the `$ref`s of a v3 schema for v2 (`#/components/schemas/` → `#/definitions/`). */
function withRefs(schema: unknown, refPrefix: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withRefs(s, refPrefix));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] =
      k === '$ref' && typeof v === 'string'
        ? v.replace(/^#\/(components\/schemas|definitions)\//, refPrefix)
        : withRefs(v, refPrefix);
  }
  return out;
}

/**
 * Adds the definition of a custom resource: its openAPIV3Schema (or an object that keeps
 * anything) with `apiVersion`, `kind` and `metadata` as kube-apiserver publishes them for a
 * CRD; returns the definition's name.
 */
export function addCustomResource(defs: Definitions, t: ResourceType, refPrefix: string): string {
  const name = customDefinitionName(t);
  const schema = withRefs(t.schema ?? PERMISSIVE, refPrefix) as JsonSchema;
  const properties = { ...((schema.properties as Record<string, JsonSchema>) ?? {}) };
  properties.apiVersion ??= { type: 'string' };
  properties.kind ??= { type: 'string' };
  if (attributesOf('V1ObjectMeta') !== undefined) {
    defs.addClass('V1ObjectMeta');
    properties.metadata = defs.ref(OBJECT_META);
  }
  defs.schemas[name] = {
    ...schema,
    type: 'object',
    properties,
    'x-kubernetes-group-version-kind': [{ group: t.group, version: t.version, kind: t.kind }],
  };
  return name;
}
