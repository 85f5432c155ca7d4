import * as k8s from '@kubernetes/client-node';

/** One property of a client-node model class, as its generated `attributeTypeMap` lists it. */
export interface Attribute {
  name: string;
  /** The JSON name. */
  baseName: string;
  /** `string`, `number`, `boolean`, `Date`, `any`, `IntOrString`, `Array<X>`, `{ [key: string]: X; }` or a class name. */
  type: string;
  /** `int32`, `int64`, `double`, `byte`, `date-time`, `int-or-string` or ''. */
  format: string;
}

const CLASSES = k8s as unknown as Record<string, { attributeTypeMap?: Attribute[] } | undefined>;

/** The properties of a client-node model class, or undefined when there is no such class. */
export function attributesOf(className: string): Attribute[] | undefined {
  const attributes = CLASSES[className]?.attributeTypeMap;
  return Array.isArray(attributes) ? attributes : undefined;
}

/** `rbac.authorization.k8s.io` → `rbac`, `''` → `core`: the short name of a group's package. */
export function packageName(group: string): string {
  return group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').split('.')[0];
}

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The client-node class of a built-in kind: `V1Deployment`, or the group-qualified name the
 * generator gives kinds whose name two groups share (`CoreV1Event`, `EventsV1Event`).
 */
export function classOfKind(group: string, version: string, kind: string): string | undefined {
  const plain = `${capitalized(version)}${kind}`;
  const qualified = `${capitalized(packageName(group))}${plain}`;
  if (attributesOf(qualified) !== undefined) return qualified;
  return attributesOf(plain) !== undefined ? plain : undefined;
}

const CLASS_NAME = /^([A-Z][a-z]+)?(V\d+(?:(?:alpha|beta)\d+)?)([A-Z]\w*)$/;

/** The Go type name and the version of a class: `V1PodSpec` → [`PodSpec`, `v1`]. */
export function goName(className: string): [string, string] {
  const m = CLASS_NAME.exec(className);
  if (m === null) return [className, 'v1'];
  return [m[3], m[2].toLowerCase()];
}

/** The types of `k8s.io/apimachinery/pkg/apis/meta/v1` that the kinds' schemas refer to. */
const META_TYPES = new Set([
  'ObjectMeta',
  'ListMeta',
  'LabelSelector',
  'LabelSelectorRequirement',
  'ManagedFieldsEntry',
  'OwnerReference',
  'Condition',
  'Status',
  'StatusDetails',
  'StatusCause',
  'DeleteOptions',
  'Preconditions',
]);

/** kube-apiserver's prefix of a group's definitions: `io.k8s.api.apps.`. */
export function definitionPrefix(group: string): string {
  if (group === 'apiextensions.k8s.io')
    return 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.';
  if (group === 'apiregistration.k8s.io') return 'io.k8s.kube-aggregator.pkg.apis.apiregistration.';
  return `io.k8s.api.${packageName(group)}.`;
}

/**
 * The definition name kube-apiserver gives a class (`io.k8s.api.core.v1.PodSpec`), given the
 * group that owns it: client-node's classes do not carry their Go package, so a nested type is
 * named after the group of the first kind that uses it (core before the others), and the meta
 * types after `io.k8s.apimachinery.pkg.apis.meta.v1`.
 */
export function definitionName(className: string, ownerGroup: string): string {
  const [name, version] = goName(className);
  if (META_TYPES.has(name) && version === 'v1')
    return `io.k8s.apimachinery.pkg.apis.meta.v1.${name}`;
  return `${definitionPrefix(ownerGroup)}${version}.${name}`;
}
