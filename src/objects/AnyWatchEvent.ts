import type { WatchEvent, WatchEventType } from '../types.js';

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

/** The object type carried by the ADDED/MODIFIED/DELETED members of the event union `E`. */
export type ObjectOfEvent<E> = E extends { type: WatchEventType; object: infer T } ? T : never;
