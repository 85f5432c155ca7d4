import type { Observable } from 'rxjs';
import type { WatchSource } from './WatchSource.js';
import type { WatchEvent } from '../types.js';

/**
 * The operators are typed as `Observable -> ...` so they fit `pipe()`, whose operator type cannot
 * ask for a subtype; they still need the request behind the stream, so a plain Observable is a
 * usage error reported when the operator is applied, not when the first reconnect needs it.
 */
export function requireWatchSource<T>(
  input: Observable<WatchEvent<T>>,
  operator: string,
): WatchSource<T> {
  const candidate = input as Partial<WatchSource<T>>;
  if (typeof candidate.withOptions !== 'function' || typeof candidate.list !== 'function')
    throw new TypeError(
      `${operator}() needs a WatchSource (fromWatch(...) or an operator that keeps one), not a plain Observable`,
    );
  return input as WatchSource<T>;
}
