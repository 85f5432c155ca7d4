import { jsonEqual } from '../jsonEqual.js';
import { StatusError, statusBody } from '../statusBody.js';
import type { KubeStatus } from '../statusBody.js';
import { PathSet, pathString } from './fieldPath.js';
import type { FieldPath } from './fieldPath.js';
import {
  copyManagers,
  decodeManagers,
  encodeManagers,
  isReset,
  managerId,
  nowRfc3339,
  tracked,
} from './managedFields.js';
import type { Manager, Managers } from './managedFields.js';
import type { SsaType } from './ssaSchema.js';
import { compare, fieldSet, merge, removePaths } from './typedValue.js';

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };

/** How a resource's objects are tracked: their apply schema and the apiVersion served. */
export interface Tracking {
  readonly type: SsaType;
  readonly apiVersion: string;
  /** Paths the API's Go types always hold (a struct that "appears" is not itself added). */
  readonly always: (path: FieldPath) => boolean;
  /** Paths this endpoint does not track (status on the main resource of a built-in kind). */
  readonly reset: (path: FieldPath) => boolean;
}

/** Whether `t` tracks ownership of `path`. */
function owns(t: Tracking): (path: FieldPath) => boolean {
  return (p) => tracked(p) && !t.reset(p);
}

/** A copy without `metadata.managedFields`: ownership is computed on the rest. */
function withoutManaged(obj: Obj): Obj {
  const { managedFields: _mf, ...metadata } = (obj.metadata ?? {}) as Record<string, unknown>;
  return { ...obj, metadata };
}

function setManaged(obj: Obj, managers: Managers): void {
  const entries = encodeManagers(managers);
  const metadata = { ...(obj.metadata ?? {}) };
  if (entries === undefined) delete metadata.managedFields;
  else metadata.managedFields = entries;
  obj.metadata = metadata;
}

/** What changed between two objects, on the fields the API server tracks. */
function changes(before: Obj, after: Obj, t: Tracking) {
  const c = compare(before, after, t.type, t.always);
  return {
    changed: c.added.union(c.modified).filter(owns(t)),
    removed: c.removed.filter(owns(t)),
  };
}

/**
 * Records an ordinary write (POST, PUT, a non-apply PATCH) in `next.metadata.managedFields`:
 * `manager` gets an Update entry for the fields the write added or changed, every other entry
 * loses them and the fields it removed; empty entries go. `next` may set managedFields itself
 * (`[]` resets them); a subresource write cannot.
 */
export function recordUpdate(
  live: Obj | undefined,
  next: Obj,
  manager: string,
  t: Tracking,
  subresource?: string,
): void {
  const requested = next.metadata?.managedFields;
  const fromLive = (): Managers => decodeManagers(live?.metadata?.managedFields) ?? new Map();
  let managers: Managers;
  if (subresource !== undefined) managers = fromLive();
  else if (isReset(requested)) managers = new Map();
  else {
    const own = decodeManagers(requested);
    managers = own === undefined || own.size === 0 ? fromLive() : own;
  }
  const after = withoutManaged(next);
  const { changed, removed } = changes(live === undefined ? {} : withoutManaged(live), after, t);
  const entry = { manager, operation: 'Update' as const, apiVersion: t.apiVersion, subresource };
  const id = changed.size > 0 ? managerId(entry) : undefined;
  // A set the write does not touch stays the same set (its encoding is then known), and so does
  // the writer's when it owned what it changed already: (S - C - R) + C is S.
  for (const [mid, m] of managers) {
    if (mid === id && m.set.hasAll(changed) && !m.set.intersects(removed)) continue;
    if (m.set.intersects(changed) || m.set.intersects(removed))
      m.set = m.set.difference(changed).difference(removed);
  }
  if (id !== undefined) {
    const prev = managers.get(id)?.set ?? new PathSet();
    const set = prev.hasAll(changed) ? prev : prev.union(changed);
    managers.set(id, { ...entry, time: nowRfc3339(), set });
  }
  setManaged(next, managers);
}

/**
 * Server-side apply of `config` by `manager` to `live` (undefined: the object is created); the
 * object to store. It merges the configuration, removes the fields the manager applied before
 * and no one owns now, and answers 409 when it changes fields other managers own, unless
 * `force` takes them over (or every conflicting field is in what `relief` allows).
 *
 * @example
 * const obj = applyConfig(live, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' },
 *   data: { a: '1' } }, 'alice', false, tracking);
 * // obj.data.a === '1'; obj.metadata.managedFields has alice's Apply entry owning f:data.f:a
 */
export function applyConfig(
  live: Obj | undefined,
  config: Obj,
  manager: string,
  force: boolean,
  t: Tracking,
  options: { subresource?: string; relief?: () => PathSet | undefined } = {},
): Obj {
  const { subresource, relief } = options;
  const managers = copyManagers(decodeManagers(live?.metadata?.managedFields) ?? new Map());
  const base = live === undefined ? {} : withoutManaged(live);
  if (live !== undefined && managers.size === 0) {
    // An object no one manages yet (made before field tracking): the API server gives its fields
    // to `before-first-apply`, so the first apply conflicts where it changes them.
    const set = fieldSet(base, t.type).filter(owns(t));
    const bfa = {
      manager: 'before-first-apply',
      operation: 'Update' as const,
      apiVersion: String(base.apiVersion ?? t.apiVersion),
    };
    managers.set(managerId(bfa), { ...bfa, set });
  }
  const id = managerId({ manager, operation: 'Apply', apiVersion: t.apiVersion, subresource });
  const last = managers.get(id);
  const applied: Manager = {
    manager,
    operation: 'Apply',
    apiVersion: t.apiVersion,
    set: fieldSet(config, t.type).filter(owns(t)),
  };
  if (last?.time !== undefined) applied.time = last.time;
  if (subresource !== undefined) applied.subresource = subresource;
  managers.set(id, applied);
  let merged = merge(base, config, t.type) as Obj;
  if (last !== undefined) {
    let owned = new PathSet();
    for (const m of managers.values()) owned = owned.union(m.set);
    const gone = last.set.difference(owned);
    if (gone.size > 0) merged = removePaths(merged, gone, t.type, owned, t.always) as Obj;
  }
  // The status subresource changes status only (its strategy keeps the rest of the object).
  if (subresource === 'status') merged = withStatusOf(base, merged);
  const { changed, removed } = changes(base, merged, t);
  const conflicts: Array<[Manager, FieldPath]> = [];
  for (const [other, m] of managers) {
    if (other === id) continue;
    for (const p of m.set.intersection(changed).toArray()) conflicts.push([m, p]);
  }
  if (conflicts.length > 0 && !force) {
    // Conflicts `relief` allows (kubectl taking over from client-side apply) force the apply.
    const allowed = relief?.();
    const remaining = conflicts.filter(([, p]) => allowed === undefined || !allowed.has(p));
    if (remaining.length > 0) throw conflictError(remaining);
  }
  for (const [other, m] of managers) {
    if (other !== id) m.set = m.set.difference(changed).difference(removed);
  }
  const objectChanged = !jsonEqual(base, merged);
  // As kube-apiserver: the applier's time moves only when the object changes.
  if (objectChanged) applied.time = nowRfc3339();
  setManaged(merged, managers);
  return merged;
}

/** `base` with the status of `from`. */
function withStatusOf(base: Obj, from: Obj): Obj {
  const { status: _old, ...rest } = base;
  return from.status === undefined ? rest : { ...rest, status: from.status };
}

/** `"kubectl"`, or `"kubectl-client-side-apply" using apps/v1` for an updater. */
export function printManager(m: Manager): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource !== undefined) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  return m.operation === 'Update' ? `${s} using ${m.apiVersion}` : s;
}

/** The 409 kube-apiserver answers for apply conflicts: one FieldManagerConflict per field. */
export function conflictError(conflicts: Array<[Manager, FieldPath]>): StatusError {
  const name = ([m]: [Manager, FieldPath]): string => printManager(m);
  // Grouped by manager (kube-apiserver sorts them), each manager's paths in set order.
  const sorted = [...conflicts].sort((a, b) =>
    name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0,
  );
  const causes = sorted.map(([m, p]) => ({
    type: 'FieldManagerConflict',
    message: `conflict with ${printManager(m)}`,
    field: pathString(p),
  }));
  let message: string;
  if (sorted.length === 1) {
    const [[m, p]] = sorted;
    message = `Apply failed with 1 conflict: conflict with ${printManager(m)}: ${pathString(p)}`;
  } else {
    const lines: string[] = [];
    let previous: Manager | undefined;
    for (const [m, p] of sorted) {
      if (previous === undefined || managerId(previous) !== managerId(m)) {
        lines.push(`conflicts with ${printManager(m)}:`);
      }
      lines.push(`- ${pathString(p)}`);
      previous = m;
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  const details = { causes } as KubeStatus['details'];
  return new StatusError(statusBody(409, message, 'Conflict', details));
}
