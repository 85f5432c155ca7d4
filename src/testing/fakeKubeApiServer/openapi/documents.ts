import { createHash } from 'node:crypto';
import type { ResourceTypes, ServedType as ResourceType } from '../ResourceTypes.js';
import { addCustomResource } from './customResources.js';
import { encodeV2Document } from './v2Protobuf.js';
import { Definitions } from './schemas.js';
import type { JsonSchema } from './schemas.js';

const V3_REFS = '#/components/schemas/';
const V2_REFS = '#/definitions/';

/** `api/v1` or `apis/apps/v1`: a group version's key in `/openapi/v3`. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** Adds a type's definition (built-in from client-node's models, else its CRD schema). */
function addType(defs: Definitions, t: ResourceType, refPrefix: string): string {
  const name = t.builtin ? defs.addKind(t.group, t.version, t.kind) : undefined;
  return name ?? addCustomResource(defs, t, refPrefix);
}

const query = (name: string, type = 'string'): JsonSchema => ({
  name,
  in: 'query',
  schema: { type },
});
const WRITE_PARAMS = [query('dryRun'), query('fieldManager'), query('fieldValidation')];
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** The paths of one resource, with the operations' GVK and action as kube-apiserver tags them. */
function paths(t: ResourceType, definition: string): Record<string, JsonSchema> {
  const prefix = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  const collection = `${prefix}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}`;
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const body = (types: string[]): JsonSchema => ({
    required: true,
    content: Object.fromEntries(types.map((c) => [c, { schema: { $ref: V3_REFS + definition } }])),
  });
  const ok = {
    '200': {
      description: 'OK',
      content: { 'application/json': { schema: { $ref: V3_REFS + definition } } },
    },
  };
  const op = (action: string, verb: string, extra: JsonSchema = {}): JsonSchema => ({
    operationId: `${verb}${t.kind}`,
    responses: ok,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...extra,
  });
  const pathParams = (names: string[]): JsonSchema[] =>
    names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const scope = t.namespaced ? ['namespace'] : [];
  return {
    [collection]: {
      parameters: pathParams(scope),
      get: op('list', 'list'),
      post: op('post', 'create', {
        parameters: WRITE_PARAMS,
        requestBody: body(['application/json']),
      }),
      delete: op('deletecollection', 'deleteCollection'),
    },
    [`${collection}/{name}`]: {
      parameters: pathParams(['name', ...scope]),
      get: op('get', 'read'),
      put: op('put', 'replace', {
        parameters: WRITE_PARAMS,
        requestBody: body(['application/json']),
      }),
      patch: op('patch', 'patch', {
        parameters: [...WRITE_PARAMS, query('force', 'boolean')],
        // Custom resources take no strategic merge patch: kubectl sends them a merge patch.
        requestBody: body(
          t.builtin
            ? PATCH_TYPES
            : PATCH_TYPES.filter((c) => !c.startsWith('application/strategic')),
        ),
      }),
      delete: op('delete', 'delete'),
    },
  };
}

/** The `/openapi/v3/<group version>` document of some resource types. */
export function v3Document(types: ResourceType[]): JsonSchema {
  const defs = new Definitions(V3_REFS);
  const allPaths: Record<string, JsonSchema> = {};
  for (const t of types) Object.assign(allPaths, paths(t, addType(defs, t, V3_REFS)));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: allPaths,
    components: { schemas: defs.schemas },
  };
}

/** The `/openapi/v2` document (Swagger 2.0): the definitions of every type, no paths. */
export function v2Document(types: ResourceType[]): JsonSchema {
  const defs = new Definitions(V2_REFS);
  for (const t of types) addType(defs, t, V2_REFS);
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: {},
    definitions: defs.schemas,
  };
}

/** A type's schema and the definitions its `$ref`s point to. */
export interface TypeSchema {
  schema: JsonSchema;
  definitions: Record<string, JsonSchema>;
}

/** A document, its JSON text and the hash the v3 index gives its URL. */
export interface Built {
  key: string;
  json: string;
  hash: string;
  doc: JsonSchema;
}

/**
 * The OpenAPI documents of a server's types, built when first asked for and rebuilt when the
 * types of a group version change (a `defineResource`).
 */
export class OpenApiDocuments {
  private readonly cache = new Map<string, Built & { protobuf?: Buffer }>();
  private readonly schemas = new WeakMap<ResourceType, TypeSchema | undefined>();

  constructor(private readonly types: ResourceTypes) {}

  private groupVersions(): Map<string, ResourceType[]> {
    const byPath = new Map<string, ResourceType[]>();
    for (const t of this.types.all()) {
      const path = groupVersionPath(t.group, t.version);
      byPath.set(path, [...(byPath.get(path) ?? []), t]);
    }
    return byPath;
  }

  /** A group version's v3 document as JSON text, with its hash; undefined if none. */
  v3(path: string): Built | undefined {
    const types = this.groupVersions().get(path);
    if (types === undefined) return undefined;
    const key = JSON.stringify(types);
    const cached = this.cache.get(path);
    if (cached?.key === key) return cached;
    const doc = v3Document(types);
    const json = JSON.stringify(doc);
    const hash = createHash('sha512').update(json).digest('hex').toUpperCase();
    const entry = { key, json, hash, doc };
    this.cache.set(path, entry);
    return entry;
  }

  /**
   * The schema of a type and the definitions its `$ref`s point to (those of its group
   * version's v3 document); undefined for a type the server does not serve.
   */
  schemaOf(t: ResourceType): TypeSchema | undefined {
    // A type's schema depends on that type alone, and redefining a type makes a new object.
    if (this.schemas.has(t)) return this.schemas.get(t);
    const found = this.findSchema(t);
    this.schemas.set(t, found);
    return found;
  }

  private findSchema(t: ResourceType): TypeSchema | undefined {
    const doc = this.v3(groupVersionPath(t.group, t.version))?.doc;
    const definitions = (doc?.components as { schemas: Record<string, JsonSchema> } | undefined)
      ?.schemas;
    if (definitions === undefined) return undefined;
    const schema = Object.values(definitions).find((d) =>
      (d['x-kubernetes-group-version-kind'] as JsonSchema[] | undefined)?.some(
        (g) => g.group === t.group && g.version === t.version && g.kind === t.kind,
      ),
    );
    return schema === undefined ? undefined : { schema, definitions };
  }

  /** The `/openapi/v3` index: each group version's document, by a URL with its hash. */
  index(): JsonSchema {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const path of this.groupVersions().keys()) {
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${this.v3(path)!.hash}` };
    }
    return { paths };
  }

  private v2Built(): Built & { protobuf?: Buffer } {
    const key = JSON.stringify(this.types.all());
    const cached = this.cache.get('v2');
    if (cached?.key === key) return cached;
    const doc = v2Document(this.types.all());
    const entry = { key, json: JSON.stringify(doc), hash: '', doc };
    this.cache.set('v2', entry);
    return entry;
  }

  /** The `/openapi/v2` document as JSON text. */
  v2(): string {
    return this.v2Built().json;
  }

  /** The `/openapi/v2` document as gnostic's protobuf (encoded once per set of types). */
  v2Protobuf(): Buffer {
    const built = this.v2Built();
    built.protobuf ??= encodeV2Document(built.doc);
    return built.protobuf;
  }
}
