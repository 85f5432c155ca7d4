import { isValidSegment } from '../../objects/resourcePath.js';
import { CliError } from '../CliError.js';

/** One version of a CustomResourceDefinition, as far as types need it. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  /** The version's `schema.openAPIV3Schema` (checked to be an object). */
  schema: Record<string, unknown>;
  /** Its JSON path in the CRD, for messages: `.spec.versions[0]`. */
  path: string;
}

/** A checked `apiextensions.k8s.io/v1` CustomResourceDefinition and where it came from. */
export interface Crd {
  /** The CRD's name (`plural.group`). */
  name: string;
  group: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  versions: CrdVersion[];
  /** Where it came from, for messages and the output's header: `crontab.yaml (document 2)`. */
  origin: string;
}

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * Checks that `doc` is a v1 CustomResourceDefinition with what types need (group, names,
 * scope, versions with schemas), and returns it; anything else is a {@link CliError} naming
 * `origin` and the JSON path of what is wrong.
 *
 * @example
 * const crd = checkCrd(yaml.load(text), 'crontab.yaml');
 */
export function checkCrd(doc: unknown, origin: string): Crd {
  const fail = (path: string, why: string): never => {
    throw new CliError(`${origin}: ${path}: ${why}`);
  };
  if (!isObject(doc)) return fail('.', 'not a CustomResourceDefinition (not an object)');
  if (doc.kind !== 'CustomResourceDefinition' || doc.apiVersion !== CRD_API_VERSION) {
    const what = `${String(doc.apiVersion ?? '?')} ${String(doc.kind ?? '?')}`;
    const hint =
      doc.kind === 'CustomResourceDefinition'
        ? ' (apiextensions.k8s.io/v1beta1 CRDs are gone since Kubernetes 1.22: convert it to v1)'
        : '';
    return fail('.', `not a CustomResourceDefinition (${CRD_API_VERSION}), but ${what}${hint}`);
  }
  const spec = doc.spec;
  if (!isObject(spec)) return fail('.spec', 'missing');
  const name = isObject(doc.metadata) ? String(doc.metadata.name ?? '') : '';
  const where = name ? `${origin} (${name})` : origin;
  const failIn = (path: string, why: string): never => {
    throw new CliError(`${where}: ${path}: ${why}`);
  };
  const group = stringAt(spec.group, '.spec.group', failIn);
  const names = isObject(spec.names) ? spec.names : failIn('.spec.names', 'missing');
  const plural = stringAt(names.plural, '.spec.names.plural', failIn);
  const kind = stringAt(names.kind, '.spec.names.kind', failIn);
  if (!isValidSegment('group', group)) failIn('.spec.group', `"${group}" is not a DNS name`);
  if (!isValidSegment('plural', plural))
    failIn('.spec.names.plural', `"${plural}" is not a DNS label`);
  if (!IDENTIFIER.test(kind)) failIn('.spec.names.kind', `"${kind}" is not an identifier`);
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    failIn('.spec.scope', `expected Namespaced or Cluster, got ${JSON.stringify(spec.scope)}`);
  if (!Array.isArray(spec.versions) || spec.versions.length === 0)
    failIn('.spec.versions', 'no versions');
  const versions = (spec.versions as unknown[]).map((v, i) => checkVersion(v, i, failIn));
  if (!versions.some((v) => v.served)) failIn('.spec.versions', 'no version is served');
  return {
    name: name || `${plural}.${group}`,
    group,
    plural,
    kind,
    namespaced: spec.scope === 'Namespaced',
    versions,
    origin: where,
  };
}

function checkVersion(
  v: unknown,
  i: number,
  fail: (path: string, why: string) => never,
): CrdVersion {
  const path = `.spec.versions[${i}]`;
  if (!isObject(v)) return fail(path, 'not an object');
  const name = stringAt(v.name, `${path}.name`, fail);
  if (!/^[a-z][a-z0-9-]*$/.test(name)) fail(`${path}.name`, `"${name}" is not a version name`);
  const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
  if (!isObject(schema))
    fail(`${path}.schema.openAPIV3Schema`, 'missing: every v1 CRD version has a schema');
  return {
    name,
    served: v.served === true,
    storage: v.storage === true,
    deprecated: v.deprecated === true,
    deprecationWarning: typeof v.deprecationWarning === 'string' ? v.deprecationWarning : undefined,
    schema: schema as Record<string, unknown>,
    path,
  };
}

function stringAt(
  value: unknown,
  path: string,
  fail: (path: string, why: string) => never,
): string {
  if (typeof value !== 'string' || value === '') return fail(path, 'missing');
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
