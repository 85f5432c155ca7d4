import type { WatchObjectEvent } from '../../types.js';
import { metadataOf, namespacedKey, resourceVersionOf } from './events.js';

interface Known<T> {
  resourceVersion: string | undefined;
  object: T;
}

/** `namespace/name`, or `name` for cluster-scoped objects; undefined when the object has no name. */
export function keyOf(object: unknown): string | undefined {
  const metadata = metadataOf(object);
  return metadata?.name ? namespacedKey(metadata.namespace, metadata.name) : undefined;
}

/**
 * What one subscription has delivered downstream, per key: enough to drop an exact repeat and to
 * turn a relist into the difference a consumer needs (client-go keeps this in its store; an
 * operator has no store, so it keeps the last object per key).
 */
export class DeliveredState<T> {
  private readonly known = new Map<string, Known<T>>();

  get size(): number {
    return this.known.size;
  }

  /** Records the event and returns it, or undefined when it repeats what was delivered. */
  apply(event: WatchObjectEvent<T>): WatchObjectEvent<T> | undefined {
    if (event.type === 'BOOKMARK') return event;
    const key = keyOf(event.object);
    if (key === undefined) return event;
    if (event.type === 'DELETED') {
      this.known.delete(key);
      return event;
    }
    const resourceVersion = resourceVersionOf(event);
    const previous = this.known.get(key);
    if (!previous) {
      this.known.set(key, { resourceVersion, object: event.object });
      return event;
    }
    if (resourceVersion !== undefined && previous.resourceVersion === resourceVersion)
      return undefined;
    // Updated in place: no allocation and no second hash lookup per event on a known key.
    previous.resourceVersion = resourceVersion;
    previous.object = event.object;
    return event;
  }

  /** Starts comparing a fresh full state (a list, or a watch-list's initial events) to this one. */
  resync(): Resync<T> {
    return new Resync(this.known);
  }
}

/** One comparison of a fresh full state against what was delivered. */
export class Resync<T> {
  private readonly seen = new Set<string>();
  /** How many objects the fresh state held. */
  count = 0;

  constructor(private readonly known: Map<string, Known<T>>) {}

  /** The event that brings the consumer to this object: ADDED, MODIFIED, or none if unchanged. */
  offer(object: T): WatchObjectEvent<T> | undefined {
    this.count++;
    const resourceVersion = metadataOf(object)?.resourceVersion;
    const key = keyOf(object);
    if (key === undefined) return { type: 'ADDED', object, resourceVersion };
    this.seen.add(key);
    const previous = this.known.get(key);
    this.known.set(key, { resourceVersion, object });
    if (!previous) return { type: 'ADDED', object, resourceVersion };
    if (resourceVersion !== undefined && previous.resourceVersion === resourceVersion)
      return undefined;
    return { type: 'MODIFIED', object, resourceVersion };
  }

  /** DELETED, with the last known object, for every delivered key the fresh state lacks. */
  finish(): WatchObjectEvent<T>[] {
    const gone: WatchObjectEvent<T>[] = [];
    for (const [key, { object, resourceVersion }] of this.known) {
      if (this.seen.has(key)) continue;
      this.known.delete(key);
      gone.push({ type: 'DELETED', object, resourceVersion });
    }
    return gone;
  }
}
