import { WatchError } from '../WatchError.js';

/**
 * What a value is, for a message about a bad argument: `null`, `an array`, `a number`... Never
 * the value itself: it may be huge, hold control characters or a credential, and a Symbol cannot
 * even be turned into text without a TypeError.
 *
 * @example
 * describeType(null); // 'null'
 */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'undefined' ? 'undefined' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** Whether `value` can be read as an options or reference object (not null, not an array). */
export function isObjectArgument(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why `value` is not usable as an object argument named `name` (`undefined` when it is, or when
 * it is absent and `optional`): the message that names the argument.
 *
 * @example
 * objectArgumentProblem('options', null, true); // 'options must be an object, not null'
 */
export function objectArgumentProblem(
  name: string,
  value: unknown,
  optional = false,
): string | undefined {
  if (optional && value === undefined) return undefined;
  return isObjectArgument(value)
    ? undefined
    : `${name} must be an object, not ${describeType(value)}`;
}

/**
 * Throws a TypeError (`entry: name must be an object, not null`) unless `value` is an object
 * argument: for arguments a contract checks at call time (configuration, not a request).
 *
 * @example
 * assertObjectArgument('createInformers', 'config', config, true);
 */
export function assertObjectArgument(
  entry: string,
  name: string,
  value: unknown,
  optional = false,
): void {
  const problem = objectArgumentProblem(name, value, optional);
  if (problem !== undefined) throw new TypeError(`${entry}: ${problem}`);
}

/**
 * The BAD_REQUEST a request answers when its resource or options are not objects, or
 * `undefined`: checked before either is read, so a null reference is one ERROR, not a crash.
 *
 * @example
 * const error = requestArgumentsError(resource, options);
 * if (error) return subscriber.error(error);
 */
export function requestArgumentsError(resource: unknown, options: unknown): WatchError | undefined {
  const problem =
    objectArgumentProblem('resource', resource) ?? objectArgumentProblem('options', options, true);
  return problem === undefined ? undefined : WatchError.badRequest('/', problem);
}

/** The longest part of a bad string quoted in a message: enough to recognise it, never a flood. */
const QUOTED_CHARACTERS = 64;

/**
 * A bad value as a message shows it: a string quoted (JSON-escaped, C1 controls too, cut to 64
 * characters), a number or boolean as itself, anything else by its type. Safe for any value: a
 * Symbol in a template literal would throw a TypeError of its own.
 *
 * @example
 * quoteValue('a\u001b[2J'); // '"a\\u001b[2J"'
 */
export function quoteValue(value: unknown): string {
  if (typeof value === 'string') {
    const cut = value.length > QUOTED_CHARACTERS ? `${value.slice(0, QUOTED_CHARACTERS)}…` : value;
    return JSON.stringify(cut).replace(
      /[\u007f-\u009f\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return describeType(value);
}
