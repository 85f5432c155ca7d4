import type { ListType } from '../../objects/ResourceType.js';
import { invalidValue, required, unsupported } from './fieldErrors.js';
import type { FieldError } from './fieldErrors.js';
type Schema = Record<string, unknown>;

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const LIST_TYPES = ['atomic', 'map', 'set'];

function isObject(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks an `openAPIV3Schema` as kube-apiserver checks a structural schema (the part a test
 * meets: types, array items, list types and keys); the errors found, none when it is valid.
 */
export function schemaErrors(schema: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObject(schema)) return [required(path, 'schemas are required')];
  if (schema.type === undefined || schema.type === '') {
    errors.push(required(`${path}.type`, 'must not be empty at the root'));
  } else if (schema.type !== 'object') {
    errors.push(invalidValue(`${path}.type`, schema.type, 'must be object at the root'));
  }
  walk(schema, path, errors, true);
  return errors;
}

function walk(node: Schema, path: string, errors: FieldError[], root: boolean): void {
  const open =
    node['x-kubernetes-preserve-unknown-fields'] === true ||
    node['x-kubernetes-int-or-string'] === true;
  if (node.type !== undefined && !TYPES.includes(node.type as string)) {
    errors.push(unsupported(`${path}.type`, node.type, TYPES));
  } else if (!root && (node.type === undefined || node.type === '') && !open) {
    errors.push(required(`${path}.type`, 'must not be empty for specified object fields'));
  }
  if (node.type === 'array') {
    if (!isObject(node.items)) errors.push(required(`${path}.items`, 'must be specified'));
    else walk(node.items, `${path}.items`, errors, false);
  }
  listTypeErrors(node, path, errors);
  if (isObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      if (isObject(child)) walk(child, `${path}.properties[${name}]`, errors, false);
      else errors.push(invalidValue(`${path}.properties[${name}]`, child, 'must be a schema'));
    }
  }
  if (isObject(node.additionalProperties)) {
    walk(node.additionalProperties, `${path}.additionalProperties`, errors, false);
  }
}

function listTypeErrors(node: Schema, path: string, errors: FieldError[]): void {
  const listType = node['x-kubernetes-list-type'];
  const keys = node['x-kubernetes-list-map-keys'];
  if (listType === undefined) {
    if (Array.isArray(keys) && keys.length > 0) {
      errors.push(
        required(
          `${path}.x-kubernetes-list-type`,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    }
    return;
  }
  if (!LIST_TYPES.includes(listType as string)) {
    errors.push(unsupported(`${path}.x-kubernetes-list-type`, listType, LIST_TYPES));
    return;
  }
  if (node.type !== 'array') {
    errors.push(
      invalidValue(
        `${path}.type`,
        node.type ?? '',
        'must be array if x-kubernetes-list-type is set',
      ),
    );
  }
  if (listType !== 'map') {
    if (Array.isArray(keys) && keys.length > 0) {
      errors.push(
        invalidValue(
          `${path}.x-kubernetes-list-type`,
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    }
    return;
  }
  if (!Array.isArray(keys) || keys.length === 0) {
    errors.push(
      required(
        `${path}.x-kubernetes-list-map-keys`,
        'must not be empty if x-kubernetes-list-type is map',
      ),
    );
    return;
  }
  const items = isObject(node.items) ? node.items : {};
  const props = isObject(items.properties) ? items.properties : {};
  if (items.type !== 'object') {
    errors.push(
      invalidValue(
        `${path}.items.type`,
        items.type ?? '',
        "must be object if parent array's x-kubernetes-list-type is map",
      ),
    );
  }
  keys.forEach((key, i) => {
    if (typeof key !== 'string' || !isObject(props[key])) {
      errors.push(
        invalidValue(
          `${path}.x-kubernetes-list-map-keys[${i}]`,
          key,
          'entries must all be names of item properties',
        ),
      );
    }
  });
}

/**
 * The list types a (valid) schema names, by field path from the object's root (`spec.ports`,
 * `spec.servers[].ports`, `spec.byZone{}.hosts`): what server-side apply merges lists by.
 */
export function listTypesOf(schema: unknown): Record<string, ListType> {
  const out: Record<string, ListType> = {};
  const visit = (node: unknown, path: string): void => {
    if (!isObject(node)) return;
    const listType = node['x-kubernetes-list-type'];
    if (node.type === 'array' && typeof listType === 'string' && path !== '') {
      const keys = node['x-kubernetes-list-map-keys'];
      out[path] =
        listType === 'map' && Array.isArray(keys)
          ? { type: 'map', keys: keys.map(String) }
          : { type: listType as ListType['type'] };
    }
    if (node.type === 'array') visit(node.items, `${path}[]`);
    if (isObject(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        visit(child, path === '' ? name : `${path}.${name}`);
      }
    }
    if (isObject(node.additionalProperties)) visit(node.additionalProperties, `${path}{}`);
  };
  visit(schema, '');
  return out;
}
