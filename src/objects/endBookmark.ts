import type { WatchObjectEvent } from '../types.js';
import { metadataOf } from './metadataOf.js';

/**
 * The annotation the API server puts on the BOOKMARK that ends a watch's initial events.
 *
 * @example
 * event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
 */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export function hasInitialEventsEndAnnotation(object: unknown): boolean {
  return metadataOf(object)?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
}

/**
 * An initial-events-end BOOKMARK object at `resourceVersion`, shaped like `template` (kind,
 * apiVersion), as the API server would send it.
 */
export function initialEventsEndObject<T>(template: T, resourceVersion: string | undefined): T {
  const metadata = metadataOf(template);
  return {
    ...template,
    metadata: {
      ...metadata,
      resourceVersion,
      annotations: { ...metadata?.annotations, [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
    },
  } as T;
}

/**
 * The BOOKMARK that closes a list-based sync, shaped like the one the API server sends after a
 * watch-list's initial events, so downstream code (toStore's `synced`) treats both alike.
 */
export function endBookmark<T>(resourceVersion: string, apiVersion: string): WatchObjectEvent<T> {
  const object = initialEventsEndObject({ apiVersion } as T, resourceVersion);
  return { type: 'BOOKMARK', object, resourceVersion };
}
