import { versionOf } from '../../objects/versionOf.js';
import { isValidSegment } from '../../objects/resourcePath.js';
import type { ResourceRef } from '../../types.js';
import { BUILTIN_RESOURCES } from './builtinResources.js';
import type { PrinterColumn, ResourceDefinition } from './types.js';

/** A resource type the server knows: built in, or registered with `defineResource`. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  /** A CRD's `additionalPrinterColumns`; empty for the built-in kinds. */
  printerColumns: PrinterColumn[];
  builtin: boolean;
  /** A custom resource's openAPIV3Schema, when defined with one. */
  schema?: Record<string, unknown>;
}

const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
const COLUMN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);

function typeKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/** Checks a definition the way the API server validates a CRD's names; throws a TypeError. */
function validated(def: ResourceDefinition): ResourceType {
  const { group, plural, kind } = def;
  const version = def.version ?? def.apiVersion;
  const bad = (what: string): never => {
    throw new TypeError(`defineResource: invalid ${what}: ${JSON.stringify(def)}`);
  };
  if (typeof group !== 'string' || (group !== '' && !isValidSegment('group', group))) bad('group');
  if (typeof version !== 'string' || !isValidSegment('version', version)) bad('version');
  if (!isValidSegment('plural', plural)) bad('plural');
  if (typeof kind !== 'string' || !KIND.test(kind)) bad('kind');
  const singular = def.singular ?? kind.toLowerCase();
  if (!isValidSegment('plural', singular)) bad('singular');
  const shortNames = def.shortNames ?? [];
  if (!shortNames.every((n) => isValidSegment('plural', n))) bad('shortNames');
  const printerColumns = (def.printerColumns ?? []).map((c) => ({ ...c }));
  for (const c of printerColumns) {
    if (!c.name || !COLUMN_TYPES.has(c.type) || !c.jsonPath?.startsWith('.')) bad('printerColumns');
  }
  const { schema } = def;
  if (
    schema !== undefined &&
    (schema === null || typeof schema !== 'object' || Array.isArray(schema))
  ) {
    bad('schema');
  }
  return {
    ...(schema === undefined ? {} : { schema: structuredClone(schema) }),
    group,
    version: version!,
    plural,
    singular,
    kind,
    namespaced: def.namespaced ?? true,
    shortNames: [...shortNames],
    printerColumns,
    builtin: false,
  };
}

/** The resource types the server serves discovery for, by group/version/plural. */
export class ResourceTypes {
  private readonly types = new Map<string, ResourceType>();

  constructor() {
    for (const b of BUILTIN_RESOURCES) {
      const singular = b.kind.toLowerCase();
      this.types.set(typeKey(b.group, b.version, b.plural), {
        ...b,
        shortNames: [...b.shortNames],
        singular,
        printerColumns: [],
        builtin: true,
      });
    }
  }

  /** Registers (or redefines) a resource type; returns it. */
  define(def: ResourceDefinition): ResourceType {
    const type = validated(def);
    this.types.set(typeKey(type.group, type.version, type.plural), type);
    return type;
  }

  /** The type of a resource path, if the server knows it. */
  lookup(ref: ResourceRef<unknown>): ResourceType | undefined {
    return this.types.get(typeKey(ref.group, versionOf(ref), ref.plural));
  }

  /** Every type, in registration order (built-ins first). */
  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** The types of one group version. */
  of(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.version === version);
  }

  /** The API groups (core excluded) and their versions, in the order they were first seen. */
  groups(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const t of this.types.values()) {
      if (t.group === '') continue;
      const versions = groups.get(t.group) ?? [];
      if (!versions.includes(t.version)) versions.push(t.version);
      groups.set(t.group, versions);
    }
    return groups;
  }
}

/** The CustomResourceDefinitions resource, where `defineResource` keeps a CRD per type. */
export const CRDS: ResourceRef<unknown> = {
  group: 'apiextensions.k8s.io',
  apiVersion: 'v1',
  plural: 'customresourcedefinitions',
};

/** The CustomResourceDefinition object a cluster would hold for `t` (no schema: anything goes). */
export function crdObject(t: ResourceType): {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
} {
  const names: Record<string, unknown> = {
    plural: t.plural,
    singular: t.singular,
    kind: t.kind,
    listKind: `${t.kind}List`,
  };
  if (t.shortNames.length > 0) names.shortNames = t.shortNames;
  const version: Record<string, unknown> = {
    name: t.version,
    served: true,
    storage: true,
    schema: {
      openAPIV3Schema: t.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  if (t.printerColumns.length > 0) version.additionalPrinterColumns = t.printerColumns;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${t.plural}.${t.group}` },
    spec: {
      group: t.group,
      names,
      scope: t.namespaced ? 'Namespaced' : 'Cluster',
      versions: [version],
    },
  };
}
