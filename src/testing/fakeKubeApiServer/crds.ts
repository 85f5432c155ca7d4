import { singularOfKind } from '../../objects/ResourceType.js';
import type { PrinterColumn, ResourceType } from '../../objects/ResourceType.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';
import { listTypesOf } from './crdSchema.js';
import { crdErrors, invalidCrd } from './crdValidation.js';
import type { ObjectStore, StoredEvent } from './ObjectStore.js';
import { CRDS } from './ResourceTypes.js';
import type { ResourceTypes } from './ResourceTypes.js';
import { linkViews } from './views.js';

type Obj = Record<string, any>;

/** RFC 3339 in whole seconds, as the API server writes timestamps. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The resource types a valid CRD serves: one per served version, the storage version first. */
export function typesOfCrd(crd: Obj): ResourceType[] {
  const spec = crd.spec;
  const names = spec.names;
  const versions = [...spec.versions].sort(
    (a: Obj, b: Obj) => Number(b.storage === true) - Number(a.storage === true),
  );
  return versions
    .filter((v: Obj) => v.served === true)
    .map((v: Obj): ResourceType => {
      const schema = v.schema?.openAPIV3Schema;
      const type: ResourceType = {
        group: spec.group,
        version: v.name,
        plural: names.plural,
        singular: names.singular || singularOfKind(names.kind),
        kind: names.kind,
        namespaced: spec.scope === 'Namespaced',
        shortNames: [...(names.shortNames ?? [])],
        subresources: {
          ...(v.subresources?.status != null && { status: true }),
          ...(v.subresources?.scale != null && { scale: { ...v.subresources.scale } }),
        },
        listTypes: listTypesOf(schema),
        schema,
        printerColumns: (v.additionalPrinterColumns ?? []).map((c: PrinterColumn) => ({ ...c })),
      };
      if (Array.isArray(names.categories)) type.categories = [...names.categories];
      return type;
    });
}

/**
 * Validates a CRD written by a client (422 Invalid when kube-apiserver would refuse it), fills
 * the defaults kube-apiserver fills, and sets the status its controllers set: accepted names,
 * NamesAccepted and Established, stored versions. A client's status is ignored (the CRD
 * resource has a status subresource).
 */
export function admitCrd(crd: Obj, prev?: Obj): void {
  const errors = crdErrors(crd);
  if (errors.length > 0) throw invalidCrd(crd.metadata?.name, errors);
  const spec = crd.spec;
  spec.names.singular ||= singularOfKind(spec.names.kind);
  spec.names.listKind ||= `${spec.names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  const { plural, singular, kind, listKind, shortNames, categories } = spec.names;
  const acceptedNames: Obj = { plural, singular, kind, listKind };
  if (shortNames?.length > 0) acceptedNames.shortNames = shortNames;
  if (categories?.length > 0) acceptedNames.categories = categories;
  const since = (type: string): string =>
    prev?.status?.conditions?.find((c: Obj) => c.type === type)?.lastTransitionTime ?? now();
  const storage = spec.versions.find((v: Obj) => v.storage === true).name;
  const stored: string[] = prev?.status?.storedVersions ?? [];
  crd.status = {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: since('NamesAccepted'),
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: since('Established'),
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames,
    storedVersions: stored.includes(storage) ? stored : [...stored, storage],
  };
}

/** What the server keeps per registered CRD. */
interface Served {
  types: ResourceType[];
  unlink: () => void;
}

const nameOf = (crd: KubernetesObject): string => crd.metadata?.name ?? '';

/**
 * Makes CRD objects define resource types, as kube-apiserver's apiextensions controllers do:
 * a stored CRD (however written: HTTP, `defineResource`, the object API) registers its served
 * versions (discovery, serving, the kind of their objects), all versions serving the same
 * objects; a deleted CRD deletes its objects (watchers get DELETED, then their watch ends:
 * `onRemoved`) and leaves discovery.
 */
export function serveCrds(
  objects: ObjectStore,
  types: ResourceTypes,
  onRemoved: (ref: ResourceRef<unknown>) => void,
): void {
  const served = new Map<string, Served>();
  const forget = (name: string, keep: ResourceType[]): void => {
    const was = served.get(name);
    if (was === undefined) return;
    was.unlink();
    served.delete(name);
    for (const type of was.types) {
      if (keep.some((t) => t.version === type.version && t.plural === type.plural)) continue;
      types.remove(type);
      const ref = { group: type.group, version: type.version, plural: type.plural };
      for (const obj of objects.list(ref)) {
        objects.delete(ref, obj.metadata?.namespace, obj.metadata?.name ?? '');
      }
      onRemoved(ref);
    }
  };
  objects.resource(CRDS).listeners.add((event: StoredEvent) => {
    const crd = event.entry.obj as Obj;
    const name = nameOf(crd);
    if (event.type === 'DELETED') {
      forget(name, []);
      return;
    }
    // An invalid CRD can only come from the object API (HTTP writes are validated): it changes
    // nothing of what the CRD served.
    if (crdErrors(crd).length > 0) return;
    const next = typesOfCrd(crd);
    forget(name, next);
    for (const type of next) {
      types.define(type, name);
      objects.resource(type).kind = type.kind;
    }
    const storage = `${crd.spec.group}/${next[0]?.version}`;
    const unlink =
      next.length < 2
        ? () => undefined
        : linkViews(
            objects,
            next.map((type) => {
              const apiVersion = `${type.group}/${type.version}`;
              return {
                ref: type,
                fromStored: (obj) => ({ ...obj, apiVersion }),
                toStored: (obj) => ({ ...obj, apiVersion: storage }),
              };
            }),
          );
    served.set(name, { types: next, unlink });
  });
}
