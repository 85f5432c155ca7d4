import { singularOfKind } from '../../objects/ResourceType.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';
import { admitCrd, typesOfCrd } from './crds.js';
import { CRDS } from './ResourceTypes.js';
import { crdErrors } from './crdValidation.js';
import type { ObjectStore } from './ObjectStore.js';
import type { ResourceTypes } from './ResourceTypes.js';
import type { ResourceDefinition } from './types.js';

type Obj = Record<string, any>;

const ANYTHING = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** A definition's version as a CRD version entry. */
function versionEntry(def: ResourceDefinition, version: string, storage: boolean): Obj {
  const entry: Obj = {
    name: version,
    served: true,
    storage,
    schema: { openAPIV3Schema: def.schema ?? ANYTHING },
  };
  const { status, scale } = def.subresources ?? {};
  const subresources: Obj = {};
  if (status === true) subresources.status = {};
  if (scale === true) {
    subresources.scale = {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    };
  } else if (typeof scale === 'object' && scale !== null) subresources.scale = { ...scale };
  if (Object.keys(subresources).length > 0) entry.subresources = subresources;
  if (def.printerColumns !== undefined && def.printerColumns.length > 0) {
    entry.additionalPrinterColumns = def.printerColumns.map((c) => ({ ...c }));
  }
  return entry;
}

/**
 * The CustomResourceDefinition a definition stands for. Defining another version of a CRD the
 * server holds adds that version (the first one defined stays the storage version); defining a
 * version again replaces it.
 */
export function crdForDefinition(def: ResourceDefinition, existing?: Obj): Obj {
  const version = def.version ?? def.apiVersion ?? '';
  const names: Obj = { plural: def.plural, kind: def.kind, listKind: `${def.kind}List` };
  names.singular = def.singular ?? (typeof def.kind === 'string' ? singularOfKind(def.kind) : '');
  if (def.shortNames !== undefined && def.shortNames.length > 0) names.shortNames = def.shortNames;
  const versions: Obj[] = structuredClone(existing?.spec?.versions ?? []);
  const at = versions.findIndex((v) => v.name === version);
  const storage = at >= 0 ? versions[at].storage === true : versions.length === 0;
  const entry = versionEntry(def, version, storage);
  if (at >= 0) versions[at] = entry;
  else versions.push(entry);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { ...(existing?.metadata ?? {}), name: `${def.plural}.${def.group}` },
    spec: {
      group: def.group,
      names,
      scope: def.namespaced === false ? 'Cluster' : 'Namespaced',
      versions,
    },
  };
}

/**
 * `defineResource`: writes the CRD a definition stands for (what registers the type, see
 * `serveCrds`), or, for the core group, which no CRD can extend, registers the type alone.
 * Throws a TypeError naming what kube-apiserver would refuse.
 */
export function defineResource<T>(
  objects: ObjectStore,
  types: ResourceTypes,
  def: ResourceDefinition,
): ResourceRef<T> {
  const { schema } = def ?? {};
  if (
    schema !== undefined &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    throw new TypeError(`defineResource: invalid schema: ${JSON.stringify(def)}`);
  }
  const name = `${def?.plural}.${def?.group}`;
  const existing = def?.group === '' ? undefined : (objects.get(CRDS, undefined, name) as Obj);
  const crd = crdForDefinition(def, existing);
  // The core group has no dot and no CRD: only its names and versions are checked.
  const errors = crdErrors(crd).filter(
    (e) => def.group !== '' || (e.field !== 'spec.group' && e.field !== 'metadata.name'),
  );
  if (errors.length > 0) {
    const why = errors.map((e) => `${e.field}: ${e.detail}`).join('; ');
    throw new TypeError(`defineResource: invalid definition ${JSON.stringify(def)}: ${why}`);
  }
  const version = def.version ?? def.apiVersion!;
  const ref: ResourceRef<T> = {
    group: def.group,
    version,
    plural: def.plural,
    kind: def.kind,
    namespaced: def.namespaced ?? true,
  };
  if (def.group === '') {
    const type = typesOfCrd(crd).find((t) => t.version === version)!;
    types.define(type);
    objects.resource(ref).kind = type.kind;
    return ref;
  }
  admitCrd(crd, existing);
  // What an update through the API would do to the generation: it follows the spec.
  const generation: number = existing?.metadata?.generation ?? 0;
  const changed = JSON.stringify(existing?.spec) !== JSON.stringify(crd.spec);
  crd.metadata.generation = changed ? generation + 1 : generation;
  if (existing === undefined) objects.create(CRDS, crd as KubernetesObject);
  else objects.update(CRDS, crd as KubernetesObject);
  return ref;
}
