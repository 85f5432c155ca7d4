import type { ObjectTransform, ResourceRef } from '../types.js';
import { toPartialObjectMetadata } from './metadataOnly.js';
import { shareManagedFields } from './shareManagedFields.js';

/**
 * What a source does to each object it decodes (events' and list items'): reduce it to its
 * metadata for a `metadataOnly` resource, then run the `transform`, then (metadata only) share
 * equal managedFields field sets: after the transform, which may modify what it is handed.
 * Undefined when there is nothing to do, so that the plain path costs nothing.
 */
export function objectDecoder(
  resource: ResourceRef<unknown>,
  transform: ObjectTransform | undefined,
): ObjectTransform | undefined {
  if (resource.shape === 'metadata') {
    return transform
      ? (object) => shareManagedFields(transform(toPartialObjectMetadata(object)))
      : (object) => shareManagedFields(toPartialObjectMetadata(object));
  }
  return transform;
}
