import { BUILTIN_RESOURCES } from '../../../objects/builtinResources.js';
import { schemaFor } from '../patchSchemas.js';
import type { Schema as PatchSchema } from '../patchSchemas.js';
import { modelDocs } from './modelDocs.js';
import { attributesOf, classOfKind, definitionName } from './models.js';

/** An OpenAPI schema object (v3; v2 differs only in where `$ref` points). */
export type JsonSchema = Record<string, unknown>;

/** The definition of `IntOrString`, as kube-apiserver publishes it. */
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
/** The definition of `ObjectMeta`, which every kind (custom resources too) refers to. */
export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const ELEMENT = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

let owners: Map<string, string> | undefined;

/** The group owning each class: that of the first built-in kind (core first) that uses it. */
function ownerGroups(): Map<string, string> {
  if (owners !== undefined) return owners;
  const found = new Map<string, string>();
  const visit = (className: string, group: string): void => {
    if (found.has(className)) return;
    const attributes = attributesOf(className);
    if (attributes === undefined) return;
    found.set(className, group);
    for (const a of attributes) visit(innermost(a.type), group);
  };
  for (const r of BUILTIN_RESOURCES) {
    const cls = classOfKind(r.group, r.version, r.kind);
    if (cls !== undefined) visit(cls, r.group);
  }
  owners = found;
  return found;
}

/** `Array<{ [key: string]: V1Foo; }>` → `V1Foo`. */
function innermost(type: string): string {
  const m = ELEMENT.exec(type) ?? MAP.exec(type);
  return m === null ? type : innermost(m[1]);
}

/** The definition name of a client-node class. */
export function nameOfClass(className: string): string {
  return definitionName(className, ownerGroups().get(className) ?? '');
}

/** The definitions the schemas of some kinds need, filled as the kinds are added. */
export class Definitions {
  readonly schemas: Record<string, JsonSchema> = {};

  /** `refPrefix`: `#/components/schemas/` (v3) or `#/definitions/` (v2). */
  constructor(private readonly refPrefix: string) {}

  /** A reference to a definition, in this document's form. */
  ref(name: string): JsonSchema {
    return { $ref: `${this.refPrefix}${name}` };
  }

  /** Adds a built-in kind (and its List) with what it refers to; its definition name. */
  addKind(group: string, version: string, kind: string): string | undefined {
    const cls = classOfKind(group, version, kind);
    if (cls === undefined) return undefined;
    const gvk = [{ group, version, kind }];
    const name = this.addClass(cls);
    this.schemas[name]['x-kubernetes-group-version-kind'] = gvk;
    annotatePatchStrategy(this, cls, schemaFor(kind));
    const list = attributesOf(`${cls}List`) === undefined ? undefined : this.addClass(`${cls}List`);
    if (list !== undefined) {
      this.schemas[list]['x-kubernetes-group-version-kind'] = [{ ...gvk[0], kind: `${kind}List` }];
    }
    return name;
  }

  /** Adds a class and the classes it refers to; its definition name. */
  addClass(className: string): string {
    const name = nameOfClass(className);
    if (this.schemas[name] !== undefined) return name;
    const docs = modelDocs(className);
    const properties: Record<string, JsonSchema> = {};
    const schema: JsonSchema = { type: 'object', properties };
    if (docs.description) schema.description = docs.description;
    if (docs.required.length > 0) schema.required = docs.required;
    this.schemas[name] = schema;
    for (const a of attributesOf(className) ?? []) {
      properties[a.baseName] = this.described(
        this.of(a.type, a.format),
        docs.properties.get(a.baseName),
      );
    }
    return name;
  }

  /**
   * A property's schema with its description (client-node's declarations describe no property
   * whose type is another model, so a `$ref` never needs kube-apiserver's `allOf` wrapping).
   */
  private described(schema: JsonSchema, description: string | undefined): JsonSchema {
    return description ? { ...schema, description } : schema;
  }

  /** The schema of a client-node attribute type. */
  of(type: string, format = ''): JsonSchema {
    const element = ELEMENT.exec(type);
    if (element !== null) return { type: 'array', items: this.of(element[1]) };
    const map = MAP.exec(type);
    if (map !== null) return { type: 'object', additionalProperties: this.of(map[1]) };
    switch (type) {
      case 'string':
        return format === '' ? { type: 'string' } : { type: 'string', format };
      case 'number':
        return format === 'double'
          ? { type: 'number', format }
          : { type: 'integer', format: format || 'int64' };
      case 'boolean':
        return { type: 'boolean' };
      case 'Date':
        return { type: 'string', format: format || 'date-time' };
      case 'IntOrString':
        this.schemas[INT_OR_STRING] = { type: 'string', format: 'int-or-string' };
        return this.ref(INT_OR_STRING);
      case 'any':
        // RawExtension, FieldsV1, JSON: any JSON value.
        return { 'x-kubernetes-preserve-unknown-fields': true };
    }
    if (attributesOf(type) === undefined) return {};
    return this.ref(this.addClass(type));
  }
}

/**
 * Puts the strategic-merge tags the server merges by (patchSchemas.ts) on the definitions, as
 * `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`: kubectl apply computes its
 * patches from them.
 */
function annotatePatchStrategy(defs: Definitions, className: string, patch: PatchSchema): void {
  const schema = defs.schemas[nameOfClass(className)];
  const properties = schema?.properties as Record<string, JsonSchema> | undefined;
  for (const [field, meta] of Object.entries(patch)) {
    const attribute = attributesOf(className)?.find((a) => a.baseName === field);
    const property = properties?.[field];
    if (attribute === undefined || property === undefined) continue;
    if (meta.mergeKey !== undefined || meta.primitiveMerge === true) {
      property['x-kubernetes-patch-strategy'] = 'merge';
      if (meta.mergeKey !== undefined) property['x-kubernetes-patch-merge-key'] = meta.mergeKey;
    }
    if (meta.of !== undefined) annotatePatchStrategy(defs, innermost(attribute.type), meta.of);
  }
}
