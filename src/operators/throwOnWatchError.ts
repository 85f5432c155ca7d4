import { map, type OperatorFunction } from 'rxjs';
import type { WatchError } from '../WatchError.js';
import type { EventNotOfType } from './ofEventType.js';

/**
 * Turns the first ERROR event into an error notification carrying its `WatchError`, so `retry`,
 * `catchError` and subscribers' `error` callbacks see failures that `fromWatch` reports as data.
 * The upstream is unsubscribed at that point, which aborts the request.
 *
 * ```
 * source:              --a--b--x--c--|   (x: ERROR event with WatchError E)
 * throwOnWatchError(): --a--b--#         (# = E)
 * ```
 *
 * @example
 * fromWatch(kc, pods).pipe(throwOnWatchError(), retry({ count: 3, delay: 1000 })).subscribe();
 */
export function throwOnWatchError<E extends { type: string }>(): OperatorFunction<
  E,
  EventNotOfType<E, 'ERROR'>
> {
  return map((event: E) => {
    if (event.type === 'ERROR') throw (event as unknown as { error: WatchError }).error;
    return event as EventNotOfType<E, 'ERROR'>;
  });
}
