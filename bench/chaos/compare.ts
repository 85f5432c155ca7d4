import { defaultKey as keyOf } from '../../src/objects/defaultKey.js';
import type { Store } from '../../src/index.js';
import type { KubernetesObject } from '../../src/types.js';

/** How a store differs from the server's objects of the same resource. */
export interface StoreDifference {
  /** On the server, not in the store. */
  missing: number;
  /** In the store, not on the server. */
  extra: number;
  /** In both, at another resourceVersion. */
  stale: number;
  /** Same resourceVersion, different content (only counted when `deep`). */
  differing: number;
  total: number;
  /** Up to 5 keys that differ, for a failing run. */
  examples: string[];
}

/**
 * Compares a store with the server's objects by key and resourceVersion (and, with `deep`, by
 * content: the store must hold exactly what the server holds).
 */
export function compareStore(
  store: Store<KubernetesObject> | undefined,
  serverObjects: readonly KubernetesObject[],
  deep: boolean,
): StoreDifference {
  const difference: StoreDifference = {
    missing: 0,
    extra: 0,
    stale: 0,
    differing: 0,
    total: 0,
    examples: [],
  };
  const note = (what: string, key: string) => {
    if (difference.examples.length < 5) difference.examples.push(`${what} ${key}`);
  };
  const onServer = new Map(serverObjects.map((o) => [keyOf(o), o]));
  for (const object of store?.values() ?? []) {
    const key = keyOf(object);
    const expected = onServer.get(key);
    if (!expected) {
      difference.extra++;
      note('extra', key);
    } else if (expected.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
      difference.stale++;
      note(
        `stale (${object.metadata?.resourceVersion} != ${expected.metadata?.resourceVersion})`,
        key,
      );
    } else if (deep && canonical(expected) !== canonical(object)) {
      difference.differing++;
      note('differing', key);
    }
    onServer.delete(key);
  }
  for (const key of onServer.keys()) {
    difference.missing++;
    note('missing', key);
  }
  difference.total =
    difference.missing + difference.extra + difference.stale + difference.differing;
  return difference;
}

/**
 * JSON with sorted keys: content equality that ignores key order and the realm an object was
 * made in (a test runner's sandbox and structuredClone disagree on prototypes, not on content).
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
