import type { KubernetesObject } from '../types.js';

type Metadata = KubernetesObject['metadata'];

/**
 * An object's metadata, if it is an object with any.
 *
 * @example
 * metadataOf(event.object)?.name;
 */
export function metadataOf(object: unknown): Metadata | undefined {
  return (object as KubernetesObject | null | undefined)?.metadata;
}
