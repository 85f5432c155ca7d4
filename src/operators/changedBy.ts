import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { defaultKey } from '../objects/defaultKey.js';
import { type AnyWatchEvent } from '../objects/AnyWatchEvent.js';
import { structuralKey } from '../objects/structuralKey.js';
import type { ObjectOfEvent } from './objects.js';

/**
 * Configuration of {@link changedBy} and `generationChanged`.
 *
 * @example
 * changedBy((pod: V1Pod) => pod.spec, { key: (pod) => pod.metadata!.uid! });
 */
export interface ChangedByConfig<T = unknown> {
  /** The key of an object (default `namespace/name`, or `name` for cluster-scoped objects). */
  key?: (object: T) => string;
}

/**
 * Drops MODIFIED events whose selected value did not change for that object since the last
 * event of that object that passed, compared structurally (equal JSON, whatever the order of
 * object keys): what a controller or a dashboard uses to skip the churn it does not care about,
 * like controller-runtime's predicates.
 *
 * - ADDED passes and records the object's value; a MODIFIED for a key not seen before passes
 *   and records it too (so subscribing mid-stream loses nothing).
 * - DELETED passes and forgets the key: a re-created object starts afresh.
 * - BOOKMARK and ERROR events pass untouched.
 * - On a merged stream (events tagged by `mergeWatches`) each source has its own keys.
 * - A `select` or `key` that throws errors the stream.
 *
 * It keeps one small string per live object (the selected value as JSON). After a relist, the
 * difference `resumeFromResourceVersion` emits is filtered like live events: a MODIFIED whose
 * object changed only outside the selection is dropped.
 *
 * ```
 * source:                       -a-m-n-o-b-d-M-|   (a: ADDED x spec 1; m: MODIFIED x spec 1;
 *                                                    n: MODIFIED x spec 2; o: MODIFIED x spec 2;
 *                                                    b: BOOKMARK; d: DELETED x; M: MODIFIED x spec 2)
 * changedBy((o) => o.spec):     -a---n---b-d-M-|
 * ```
 *
 * @example
 * // Re-render a deployment's row only when its spec or its ready count changes.
 * deployments$
 *   .pipe(changedBy((d: V1Deployment) => [d.spec, d.status?.readyReplicas]))
 *   .subscribe(renderRow);
 */
export function changedBy<E extends AnyWatchEvent>(
  select: (object: ObjectOfEvent<E>) => unknown,
  config: ChangedByConfig<ObjectOfEvent<E>> = {},
): MonoTypeOperatorFunction<E> {
  const { key = defaultKey } = config;
  const keyOf = key as (object: unknown) => string;
  const selectOf = select as (object: unknown) => unknown;
  return (source) =>
    new Observable<E>((subscriber) => {
      // Per source (undefined for an untagged stream), the selected value last passed per key.
      const passed = new Map<string | undefined, Map<string, string>>();
      return source.subscribe({
        next: (event) => {
          let pass = true;
          try {
            pass = shouldPass(event, passed, keyOf, selectOf);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          if (pass) subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

function shouldPass(
  event: AnyWatchEvent,
  passed: Map<string | undefined, Map<string, string>>,
  keyOf: (object: unknown) => string,
  select: (object: unknown) => unknown,
): boolean {
  if (event.type === 'BOOKMARK' || event.type === 'ERROR') return true;
  let values = passed.get(event.source);
  if (!values) {
    values = new Map();
    passed.set(event.source, values);
  }
  const key = keyOf(event.object);
  if (event.type === 'DELETED') {
    values.delete(key);
    return true;
  }
  const value = structuralKey(select(event.object));
  if (event.type === 'MODIFIED' && values.get(key) === value) return false;
  values.set(key, value);
  return true;
}
