import { filter, type OperatorFunction } from 'rxjs';

/**
 * The members of the event union `E` whose `type` can be one of `K`, each narrowed to those
 * types: `EventOfType<WatchEvent<V1Pod>, 'ADDED'>` is an event whose `type` is `'ADDED'` and
 * whose `object` is a `V1Pod`. Works on tagged events from `mergeWatches` too.
 */
export type EventOfType<E, K extends string> = E extends { type: infer U }
  ? [Extract<U, K>] extends [never]
    ? never
    : [U] extends [K]
      ? E
      : E & { type: Extract<U, K> }
  : never;

/**
 * The members of the event union `E` without the types `K`: `EventNotOfType<WatchEvent<V1Pod>,
 * 'ERROR'>` is an ADDED, MODIFIED, DELETED or BOOKMARK event of a `V1Pod`.
 */
export type EventNotOfType<E, K extends string> = E extends { type: infer U }
  ? [Exclude<U, K>] extends [never]
    ? never
    : [Extract<U, K>] extends [never]
      ? E
      : E & { type: Exclude<U, K> }
  : never;

/**
 * Lets through the events of the given types, and narrows their type accordingly.
 *
 * ```
 * source:                          --a--m--b--d--x--|
 * ofEventType('ADDED', 'DELETED'): --a--------d-----|
 * ```
 *
 * @example
 * fromWatch(kc, pods)
 *   .pipe(ofEventType('DELETED'))
 *   .subscribe((e) => console.log('gone:', e.object.metadata?.name)); // e.object: V1Pod
 */
export function ofEventType<E extends { type: string }, K extends E['type']>(
  ...types: [K, ...K[]]
): OperatorFunction<E, EventOfType<E, K>> {
  const wanted: readonly string[] = types;
  return filter((event: E): event is EventOfType<E, K> => wanted.includes(event.type));
}
