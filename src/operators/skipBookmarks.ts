import { filter, type OperatorFunction } from 'rxjs';
import type { EventNotOfType } from './ofEventType.js';

/**
 * Drops BOOKMARK events, for consumers that only care about changes. Bookmarks carry no object
 * change, only a resourceVersion and maybe the initial-events-end mark, so keep them where a
 * resume or a store needs them: put this after those operators.
 *
 * ```
 * source:          --a--b--m--b--|
 * skipBookmarks(): --a-----m-----|
 * ```
 *
 * @example
 * resumed$.pipe(skipBookmarks()).subscribe((e) => log(e.type)); // e.type: never 'BOOKMARK'
 */
export function skipBookmarks<E extends { type: string }>(): OperatorFunction<
  E,
  EventNotOfType<E, 'BOOKMARK'>
> {
  return filter((event: E): event is EventNotOfType<E, 'BOOKMARK'> => event.type !== 'BOOKMARK');
}
