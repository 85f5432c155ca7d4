import type { KubernetesObject } from '../types.js';
import { ResettingTable } from './internal/ResettingTable.js';

/** A field set longer than this is not shared: too long to key, too rare to repeat. */
const MAX_FIELD_SET_CHARS = 64 * 1024;

/** Distinct field sets by their JSON: 4 MiB of keys is thousands of workloads' field sets. */
const fieldSets = new ResettingTable<object>(4 * 1024 * 1024);

/**
 * A ready `transform` that keeps each distinct `fieldsV1` of `metadata.managedFields` once:
 * objects whose field sets are equal (the pods of one workload, as one manager set them) share
 * one frozen copy instead of a tree of small objects each. A pod's managedFields are about a
 * sixth of its JSON but a quarter of its heap, and most of the heap of its metadata. The objects
 * are otherwise unchanged; the shared field sets cannot be modified. `metadataOnly` resources do
 * this by default.
 *
 * ```
 * decoded: --ADDED{a, fieldsV1: F1}--ADDED{b, fieldsV1: F2 equal to F1}--
 * shared:  --ADDED{a, fieldsV1: F1}--ADDED{b, fieldsV1: F1}--------------
 * ```
 *
 * @example
 * resilientWatch(kc, pods, { transform: shareManagedFields }).pipe(toStore());
 */
export function shareManagedFields<T extends KubernetesObject>(object: T): T {
  const entries: unknown = object?.metadata?.managedFields;
  if (!Array.isArray(entries)) return object;
  for (const entry of entries as { fieldsV1?: unknown }[]) {
    const fields = entry?.fieldsV1;
    if (fields === null || typeof fields !== 'object') continue;
    const key = JSON.stringify(fields);
    if (key.length > MAX_FIELD_SET_CHARS) continue;
    const known = fieldSets.get(key);
    if (known !== undefined) entry.fieldsV1 = known;
    else fieldSets.set(key, deepFreeze(fields));
  }
  return object;
}

function deepFreeze(value: object): object {
  for (const child of Object.values(value)) {
    if (child !== null && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}
