import { CliError } from '../CliError.js';

/** A plain JSON Schema (draft 4, as json-schema-to-typescript reads it), with its `tsType`. */
export type JsonSchema = { [keyword: string]: unknown };

/** The type a field of `metadata` (root or embedded) gets: client-node's, imported by the output. */
export const OBJECT_META_TYPE = 'V1ObjectMeta';

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/**
 * Maps one structural schema of a CRD (an `openAPIV3Schema` node) onto plain JSON Schema, the
 * Kubernetes extensions included, so that a JSON Schema compiler can type it:
 * - `x-kubernetes-int-or-string` -> integer or string;
 * - `x-kubernetes-preserve-unknown-fields` -> an index signature of `unknown` beside the known
 *   properties (or `unknown` itself for a node without a type);
 * - `x-kubernetes-embedded-resource` -> `apiVersion` and `kind` (required, as the API server
 *   validates them) and `metadata` (`V1ObjectMeta`);
 * - `nullable` -> `| null`; `default` -> `@default`; `x-kubernetes-list-type`, `list-map-keys`
 *   and `map-type` -> lines of the description (they change how server-side apply merges,
 *   not the type).
 * Only the keywords that shape a type are kept: validation (`pattern`, `allOf`, CEL rules...)
 * says nothing a type can hold, and structural schemas repeat in the skeleton every property
 * those add. A `$ref`, an unknown `type` or a node without one is a {@link CliError} naming
 * `where` (the file or CRD) and the JSON path.
 *
 * @example
 * toJsonSchema({ type: 'integer', 'x-kubernetes-int-or-string': true }, 'crontab.yaml', '.spec.port');
 */
export function toJsonSchema(node: unknown, where: string, path: string): JsonSchema {
  const fail = (why: string): never => {
    throw new CliError(`${where}: ${path || '.'}: ${why}`);
  };
  if (typeof node !== 'object' || node === null || Array.isArray(node))
    return fail('expected a schema (an object)');
  const k8s = node as Record<string, unknown>;
  if ('$ref' in k8s)
    fail('a $ref: CRD schemas must be self-contained (the API server rejects $ref)');
  const mapped = mapType(k8s, where, path, fail);
  const description = describe(k8s);
  const nullInEnum = Array.isArray(mapped.enum) && mapped.enum.includes(null);
  if (k8s.nullable === true && !nullInEnum) {
    const { description: _inner, ...rest } = mapped;
    return withDescription({ anyOf: [rest, { type: 'null' }] }, description);
  }
  return withDescription(mapped, description);
}

function mapType(
  k8s: Record<string, unknown>,
  where: string,
  path: string,
  fail: (why: string) => never,
): JsonSchema {
  if (k8s['x-kubernetes-int-or-string'] === true)
    return { anyOf: [{ type: 'integer' }, { type: 'string' }] };
  const preserve = k8s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = k8s['x-kubernetes-embedded-resource'] === true;
  const type = k8s.type;
  if (type === undefined) {
    if (preserve) return embedded ? objectSchema(k8s, where, path, true, true) : {};
    return fail(
      'no type: a structural schema gives every node a type (or x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields)',
    );
  }
  if (typeof type !== 'string' || !TYPES.has(type)) {
    return fail(`unknown type ${JSON.stringify(type)}: expected one of ${[...TYPES].join(', ')}`);
  }
  const enumValues = Array.isArray(k8s.enum) ? { enum: [...(k8s.enum as unknown[])] } : {};
  switch (type) {
    case 'object':
      return objectSchema(k8s, where, path, preserve, embedded);
    case 'array': {
      if (k8s.items === undefined) return { type: 'array', items: {} };
      if (Array.isArray(k8s.items))
        fail('items is a list: a CRD schema gives one schema for items');
      return {
        type: 'array',
        items: toJsonSchema(k8s.items, where, `${path}.items`),
        ...enumValues,
      };
    }
    default:
      return { type, ...enumValues };
  }
}

function objectSchema(
  k8s: Record<string, unknown>,
  where: string,
  path: string,
  preserve: boolean,
  embedded: boolean,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const given = k8s.properties;
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
    throw new CliError(`${where}: ${path}.properties: expected an object of schemas`);
  for (const [name, schema] of Object.entries((given ?? {}) as Record<string, unknown>))
    properties[name] = toJsonSchema(schema, where, `${path}.properties${propertyPath(name)}`);
  const required = Array.isArray(k8s.required)
    ? k8s.required.filter((r): r is string => typeof r === 'string')
    : [];
  if (embedded) {
    properties.apiVersion ??= { type: 'string' };
    properties.kind ??= { type: 'string' };
    properties.metadata = { ...properties.metadata, tsType: OBJECT_META_TYPE };
    for (const name of ['apiVersion', 'kind']) if (!required.includes(name)) required.push(name);
  }
  const out: JsonSchema = { type: 'object', properties, required };
  const values = k8s.additionalProperties;
  if (values !== undefined && Object.keys(properties).length > 0)
    // The API server refuses both; typed, the properties would have to fit the map's values.
    throw new CliError(
      `${where}: ${path}: properties and additionalProperties together (the API server allows one)`,
    );
  if (preserve || values === true) out.additionalProperties = true;
  else if (typeof values === 'object' && values !== null)
    out.additionalProperties = toJsonSchema(values, where, `${path}.additionalProperties`);
  else if (Object.keys(properties).length === 0)
    // No field is kept (the API server prunes them all): not `{}`, which TypeScript reads as
    // "any value but null".
    return { tsType: 'Record<string, never>' };
  else out.additionalProperties = false;
  return out;
}

/** `.name`, or `["na.me"]` for a name that is not an identifier. */
export function propertyPath(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

/** The node's description, with what the list and map extensions say about merging. */
function describe(k8s: Record<string, unknown>): string | undefined {
  const lines: string[] = [];
  if (typeof k8s.description === 'string' && k8s.description.trim() !== '')
    lines.push(k8s.description.trim());
  const listType = k8s['x-kubernetes-list-type'];
  if (typeof listType === 'string') {
    const keys = k8s['x-kubernetes-list-map-keys'];
    const keyed = Array.isArray(keys) && keys.length > 0 ? `, keyed by ${keys.join(', ')}` : '';
    lines.push(`x-kubernetes-list-type: ${listType}${keyed}.`);
  }
  const mapType = k8s['x-kubernetes-map-type'];
  if (typeof mapType === 'string') lines.push(`x-kubernetes-map-type: ${mapType}.`);
  // What the API server sets when the field is missing: worth knowing when it is left out.
  if (k8s.default !== undefined) lines.push(`@default ${JSON.stringify(k8s.default)}`);
  return lines.length > 0 ? lines.join('\n\n') : undefined;
}

function withDescription(schema: JsonSchema, description: string | undefined): JsonSchema {
  return description === undefined ? schema : { ...schema, description };
}
