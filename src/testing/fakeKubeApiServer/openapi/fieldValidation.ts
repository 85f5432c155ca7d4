import type { ResourceRef } from '../../../types.js';
import type { ResourceTypes } from '../ResourceTypes.js';
import { badRequest } from '../statusBody.js';
import type { JsonSchema } from './schemas.js';
import { openApiDocuments } from './serve.js';

const PRESERVE = 'x-kubernetes-preserve-unknown-fields';

function resolve(schema: JsonSchema, definitions: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return definitions[ref.slice(ref.lastIndexOf('/') + 1)] ?? {};
}

/**
 * The paths of the fields of `value` that `schema` does not declare, as kube-apiserver's strict
 * decoding names them (`spec.foo`, `spec.containers[0].imag`). Keys starting with `$` are a
 * strategic merge patch's directives (`$setElementOrder/containers`, `$patch`), not fields.
 */
export function unknownFields(
  value: unknown,
  schema: JsonSchema,
  definitions: Record<string, JsonSchema>,
  path = '',
): string[] {
  const s = resolve(schema, definitions);
  if (Array.isArray(value)) {
    const items = s.items as JsonSchema | undefined;
    if (items === undefined) return [];
    return value.flatMap((v, i) => unknownFields(v, items, definitions, `${path}[${i}]`));
  }
  if (value === null || typeof value !== 'object') return [];
  const properties = s.properties as Record<string, JsonSchema> | undefined;
  const additional = s.additionalProperties;
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith('$')) continue;
    const at = path === '' ? key : `${path}.${key}`;
    const declared = properties?.[key] ?? (typeof additional === 'object' ? additional : undefined);
    if (declared !== undefined)
      out.push(...unknownFields(v, declared as JsonSchema, definitions, at));
    // An object schema without properties (FieldsV1, RawExtension) takes anything.
    else if (properties !== undefined && s[PRESERVE] !== true && additional !== true) out.push(at);
  }
  return out;
}

/**
 * The server's field validation of a create, update or patch body (`fieldValidation`): the
 * unknown fields are a 400 with `Strict` (kubectl's default: it leaves the check to a server
 * that publishes the parameter in /openapi/v3), a `Warning` header with `Warn` (the default
 * when the parameter is absent), nothing with `Ignore`. Unlike kube-apiserver, the fake keeps
 * the unknown fields it lets through rather than dropping them.
 */
export function checkUnknownFields(
  types: ResourceTypes,
  resource: ResourceRef<unknown>,
  kind: string,
  body: unknown,
  query: Record<string, string>,
  headers: Record<string, string>,
): void {
  const directive = query.fieldValidation ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(directive)) {
    throw badRequest(
      `fieldValidation: Unsupported value: "${directive}": supported values: "Ignore", "Strict", "Warn"`,
    );
  }
  const type = types.lookup(resource);
  if (directive === 'Ignore' || type === undefined) return;
  const found = openApiDocuments(types).schemaOf(type);
  if (found === undefined) return;
  const unknown = unknownFields(body, found.schema, found.definitions);
  if (unknown.length === 0) return;
  const listed = unknown.map((f) => `unknown field "${f}"`);
  if (directive === 'Strict') {
    throw badRequest(
      `${kind} in version "${type.version}" cannot be handled as a ${kind}: strict decoding error: ${listed.join(', ')}`,
    );
  }
  const warnings = listed.map((w) => `299 - ${JSON.stringify(w)}`);
  headers.Warning = [headers.Warning, ...warnings].filter((w) => w !== undefined).join(', ');
}
