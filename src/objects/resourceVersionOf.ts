import { metadataOf } from './metadataOf.js';

/**
 * The resourceVersion an object event stands for: the event's own, else its object's.
 *
 * @example
 * resourceVersionOf({ type: 'ADDED', object: pod }); // pod.metadata.resourceVersion
 */
export function resourceVersionOf(event: {
  object: unknown;
  resourceVersion?: string;
}): string | undefined {
  return event.resourceVersion ?? metadataOf(event.object)?.resourceVersion;
}
