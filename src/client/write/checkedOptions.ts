import { WatchError } from '../../WatchError.js';
import { describeType, isObjectArgument } from '../../objects/argumentChecks.js';
import { resourcePath } from '../../objects/resourcePath.js';
import type { ResourceRef } from '../../types.js';

/** The list options sent as query text: another type would be sent as whatever String() made. */
const LIST_QUERY_STRINGS = [
  'labelSelector',
  'fieldSelector',
  'resourceVersion',
  'resourceVersionMatch',
] as const;

/**
 * A method's options, checked before anything reads them: absent is `{}`; anything but an
 * object, or a `signal` that is not an AbortSignal, rejects with BAD_REQUEST naming it (a
 * `null` must not read as "no namespace", and a transport given a fake signal would fail after
 * sending). The ref is checked first (`resourcePath`), so its own message wins.
 *
 * @example
 * const opts = checkedOptions(ref, options); // throws WatchError BAD_REQUEST
 */
export function checkedOptions<O>(resource: ResourceRef<unknown>, options: O | undefined): O {
  if (options === undefined) return {} as O;
  if (!isObjectArgument(options))
    throw WatchError.badRequest(
      resourcePath(resource),
      `options must be an object, not ${describeType(options)}`,
    );
  const { signal } = options as { signal?: unknown };
  if (signal !== undefined && !isAbortSignal(signal))
    throw WatchError.badRequest(
      resourcePath(resource),
      `options.signal must be an AbortSignal, not ${describeType(signal)}`,
    );
  return options;
}

/** The text options of a list: strings or absent (BAD_REQUEST naming the option). */
export function checkListStrings(path: string, options: object): void {
  for (const key of LIST_QUERY_STRINGS) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined && typeof value !== 'string')
      throw WatchError.badRequest(path, `${key} must be a string, not ${describeType(value)}`);
  }
}

/** An AbortSignal of this realm or another (a browser frame, a test environment). */
function isAbortSignal(value: unknown): value is AbortSignal {
  const signal = value as AbortSignal;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof signal.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function' &&
    typeof signal.removeEventListener === 'function'
  );
}
