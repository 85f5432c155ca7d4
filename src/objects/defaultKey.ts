import { metadataOf } from './metadataOf.js';

/**
 * The key client-go's cache uses: `namespace/name`, or `name` for a cluster-scoped object.
 * `get(namespace, name)` on a store builds the same string, so the two always agree.
 */
export function defaultKey(object: unknown): string {
  const metadata = metadataOf(object);
  const namespace = metadata?.namespace;
  const name = metadata?.name ?? '';
  // One event's key is asked for by every stage it passes (the resumer's repeat check and its
  // record, toStore): the same strings give back the same key string, already flat and hashed,
  // instead of a new concatenation for each to flatten and hash again.
  if (namespace === lastKeyed.namespace && name === lastKeyed.name) return lastKeyed.key;
  const key = namespacedKey(namespace, name);
  lastKeyed.namespace = namespace;
  lastKeyed.name = name;
  lastKeyed.key = key;
  return key;
}

/** The last key `defaultKey` made, and what it made it from. */
const lastKeyed: { namespace: string | undefined; name: string; key: string } = {
  namespace: undefined,
  name: '',
  key: '',
};

/** The key of `name` in `namespace` (`namespace/name`), or `name` alone when cluster-scoped. */
export function namespacedKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
