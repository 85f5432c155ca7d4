import type { ObjectTransform, ResourceRef } from '../types.js';
import { toPartialObjectMetadata } from './metadataOnly.js';

/**
 * What a source does to each object it decodes (events' and list items'): reduce it to its
 * metadata for a `metadataOnly` resource, then run the `transform`. Undefined when there is
 * nothing to do, so that the plain path costs nothing.
 */
export function objectDecoder(
  resource: ResourceRef<unknown>,
  transform: ObjectTransform | undefined,
): ObjectTransform | undefined {
  if (resource.shape === 'metadata') {
    return transform
      ? (object) => transform(toPartialObjectMetadata(object))
      : toPartialObjectMetadata;
  }
  return transform;
}

/** The message of a transform that threw, without the object (not ours to print). */
export function transformFailure(cause: unknown): string {
  const why = cause instanceof Error ? cause.message : String(cause);
  return `the transform threw: ${why.slice(0, 200)}`;
}
