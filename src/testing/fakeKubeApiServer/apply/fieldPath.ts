/**
 * Field paths and sets of them, as structured-merge-diff keeps them for managedFields: a path is
 * a list of elements written as in `fieldsV1` (`f:spec`, `k:{"name":"web"}`, `v:"a"`, `i:0`),
 * and a set is encoded as the nested `fieldsV1` object (`"."` marks a member that also has
 * members below it).
 */

/** One element of a path, in its `fieldsV1` spelling. */
export type PathElement = string;
/** A path from the object's root. */
export type FieldPath = readonly PathElement[];

/** The `fieldsV1` object: nested elements, `"."` for a member with members below it. */
export interface FieldsV1 {
  [element: string]: FieldsV1;
}

/** `f:name`. */
export const field = (name: string): PathElement => `f:${name}`;
/** `v:"value"`: an item of a set. */
export const setValue = (value: unknown): PathElement => `v:${JSON.stringify(value)}`;
/** `k:{"name":"web"}`: an item of a list-map, its keys in sorted order as the API server writes. */
export function mapKey(keys: readonly string[], item: Record<string, unknown>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const k of [...keys].sort()) if (item[k] !== undefined) sorted[k] = item[k];
  return `k:${JSON.stringify(sorted)}`;
}

/** A set of paths (a manager's fields, or what a write added, changed or removed). */
export class PathSet {
  private readonly paths = new Map<string, FieldPath>();

  constructor(paths: Iterable<FieldPath> = []) {
    for (const p of paths) this.add(p);
  }

  add(path: FieldPath): void {
    this.paths.set(JSON.stringify(path), path);
  }

  has(path: FieldPath): boolean {
    return this.paths.has(JSON.stringify(path));
  }

  /** Whether a path of `other` is in this set. */
  intersects(other: PathSet): boolean {
    for (const key of other.paths.keys()) if (this.paths.has(key)) return true;
    return false;
  }

  /** Whether every path of `other` is in this set. */
  hasAll(other: PathSet): boolean {
    for (const key of other.paths.keys()) if (!this.paths.has(key)) return false;
    return true;
  }

  get size(): number {
    return this.paths.size;
  }

  /** The paths, in the order structured-merge-diff iterates them (fields before keys...). */
  toArray(): FieldPath[] {
    return [...this.paths.values()].sort(comparePaths);
  }

  union(other: PathSet): PathSet {
    return new PathSet([...this.paths.values(), ...other.paths.values()]);
  }

  difference(other: PathSet): PathSet {
    return new PathSet([...this.paths.values()].filter((p) => !other.has(p)));
  }

  intersection(other: PathSet): PathSet {
    return new PathSet([...this.paths.values()].filter((p) => other.has(p)));
  }

  filter(keep: (path: FieldPath) => boolean): PathSet {
    return new PathSet([...this.paths.values()].filter(keep));
  }

  equals(other: PathSet): boolean {
    return this.size === other.size && this.toArray().every((p) => other.has(p));
  }
}

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function compareElements(a: PathElement, b: PathElement): number {
  const ra = RANK[a[0]] ?? 4;
  const rb = RANK[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePaths(a: FieldPath, b: FieldPath): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareElements(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** The `fieldsV1` encoding of a set. */
export function toFieldsV1(set: PathSet): FieldsV1 {
  interface Node {
    member: boolean;
    children: Map<string, Node>;
  }
  const root: Node = { member: false, children: new Map() };
  for (const path of set.toArray()) {
    let node = root;
    for (const el of path) {
      let next = node.children.get(el);
      if (next === undefined)
        node.children.set(el, (next = { member: false, children: new Map() }));
      node = next;
    }
    node.member = true;
  }
  const encode = (node: Node): FieldsV1 => {
    const out: FieldsV1 = {};
    if (node.member && node.children.size > 0) out['.'] = {};
    const keys = [...node.children.keys()].sort(compareElements);
    for (const k of keys) out[k] = encode(node.children.get(k)!);
    return out;
  };
  return encode(root);
}

/** The set a `fieldsV1` object encodes; undefined when it is not one. */
export function fromFieldsV1(fields: unknown): PathSet | undefined {
  const set = new PathSet();
  const walk = (node: unknown, path: PathElement[]): boolean => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return false;
    const entries = Object.entries(node as Record<string, unknown>);
    if (path.length > 0 && (entries.length === 0 || '.' in node)) set.add(path);
    for (const [k, v] of entries) {
      if (k === '.') continue;
      if (!/^[fkvi]:/.test(k) || !walk(v, [...path, k])) return false;
    }
    return true;
  };
  return walk(fields, []) ? set : undefined;
}

/** `.spec.containers[name="web"].image`: how conflicts name a path. */
export function pathString(path: FieldPath): string {
  return path
    .map((el) => {
      const rest = el.slice(2);
      if (el.startsWith('f:')) return `.${rest}`;
      if (el.startsWith('i:')) return `[${rest}]`;
      if (el.startsWith('v:')) return `[=${rest}]`;
      const keys = JSON.parse(rest) as Record<string, unknown>;
      const pairs = Object.entries(keys).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      return `[${pairs.join(',')}]`;
    })
    .join('');
}
