import { versionOf } from '../../objects/versionOf.js';
import type { ResourceType } from '../../objects/ResourceType.js';
import type { ResourceRef } from '../../types.js';
import { BUILTIN_RESOURCES } from '../../objects/builtinResources.js';

/**
 * A resource type the server serves: the shared {@link ResourceType} record, and whether it is
 * built in (its strategy, columns and strategic merge are kube-apiserver's) or defined by a
 * CustomResourceDefinition (`crd`, its name).
 */
export interface ServedType extends ResourceType {
  readonly builtin: boolean;
  /** The CustomResourceDefinition that defines it (`crontabs.stable.example.com`). */
  readonly crd?: string;
}

/** The CustomResourceDefinitions resource: a CRD written here defines a resource type. */
export const CRDS: ResourceRef<unknown> = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
};

function typeKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/** The resource types the server serves discovery for, by group/version/plural. */
export class ResourceTypes {
  private readonly types = new Map<string, ServedType>();
  /** Types whose CRD is gone: their paths answer 404 until defined again. */
  private readonly removed = new Set<string>();

  constructor() {
    for (const b of BUILTIN_RESOURCES) {
      this.types.set(typeKey(b.group, b.version, b.plural), {
        ...b,
        shortNames: [...b.shortNames],
        builtin: true,
      });
    }
  }

  /** Registers (or redefines) a custom resource type; returns it. */
  define(type: ResourceType, crd?: string): ServedType {
    const served: ServedType = { ...type, builtin: false, ...(crd !== undefined && { crd }) };
    const key = typeKey(type.group, type.version, type.plural);
    this.types.set(key, served);
    this.removed.delete(key);
    return served;
  }

  /** Forgets a custom type (its CRD is gone or no longer serves that version). */
  remove(type: ResourceType): void {
    const key = typeKey(type.group, type.version, type.plural);
    if (this.types.get(key)?.builtin !== false) return;
    this.types.delete(key);
    this.removed.add(key);
  }

  /**
   * Whether a path names a type whose CRD was deleted (other unknown paths are served, so tests
   * can use any resource without defining it).
   */
  isRemoved(ref: ResourceRef<unknown>): boolean {
    return this.removed.has(typeKey(ref.group, versionOf(ref), ref.plural));
  }

  /** The type of a resource path, if the server knows it. */
  lookup(ref: ResourceRef<unknown>): ServedType | undefined {
    return this.types.get(typeKey(ref.group, versionOf(ref), ref.plural));
  }

  /** Every type, in registration order (built-ins first). */
  all(): ServedType[] {
    return [...this.types.values()];
  }

  /** The types of one group version. */
  of(group: string, version: string): ServedType[] {
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
