import type {
  KubernetesObject,
  WatchEvent,
  WatchEventType,
  WatchObjectEvent,
} from '../../types.js';

/**
 * The annotation the API server puts on the BOOKMARK that ends a watch's initial events.
 *
 * @example
 * event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
 */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

type Metadata = KubernetesObject['metadata'];

/** An object's metadata, if it is an object with any. */
export function metadataOf(object: unknown): Metadata | undefined {
  return (object as KubernetesObject | null | undefined)?.metadata;
}

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

export function namespacedKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** The resourceVersion an object event stands for: the event's own, else its object's. */
export function resourceVersionOf(event: {
  object: unknown;
  resourceVersion?: string;
}): string | undefined {
  return event.resourceVersion ?? metadataOf(event.object)?.resourceVersion;
}

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

/** An ADDED, MODIFIED, DELETED or BOOKMARK event, with the `source` mergeWatches may add. */
export interface AnyObjectEvent {
  type: WatchEventType;
  object: unknown;
  resourceVersion?: string;
  source?: string;
}

/**
 * What the state operators accept: a watch event, maybe tagged with its source by mergeWatches.
 *
 * @example
 * const events$: Observable<AnyWatchEvent> = mergeWatches({ pods: pods$, deployments: deployments$ });
 */
export type AnyWatchEvent = WatchEvent<any> & {
  /** The key of the source it came from, on a merged stream. */
  source?: string;
};
