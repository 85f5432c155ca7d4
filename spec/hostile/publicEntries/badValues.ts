/**
 * The bad values every argument of every public entry meets, by what the argument is. Each
 * has a label for the case's name (the values themselves may be huge or unprintable).
 */
export interface Bad {
  label: string;
  value: unknown;
}

const bad = (label: string, value: unknown): Bad => ({ label, value });

/** Not an object at all: what an object argument (a reference, options, a config) may get. */
export const NOT_OBJECTS: Bad[] = [
  bad('null', null),
  bad('a number', 42),
  bad('a string', 'pods'),
  bad('a boolean', true),
  bad('a symbol', Symbol('hostile')),
  bad('a function', () => 'hostile'),
  bad('an array', []),
];

/** The same, with undefined: for an argument that is required. */
export const MISSING_OR_NOT_OBJECTS: Bad[] = [bad('undefined', undefined), ...NOT_OBJECTS];

/** What a string argument may get instead of a string. */
export const NOT_STRINGS: Bad[] = [
  bad('null', null),
  bad('a number', 42),
  bad('an object', { toString: () => 'web' }),
  bad('a symbol', Symbol('hostile')),
];

/**
 * Strings that must never become part of a path or a query: traversal, a query, an encoded
 * slash, something very long, control characters (a terminal escape, NUL, CR LF), and empty.
 */
export const HOSTILE_STRINGS: Bad[] = [
  bad('"../x"', '../x'),
  bad('"a?b=c"', 'a?b=c'),
  bad('"%2f"', '%2f'),
  bad('"a/b"', 'a/b'),
  bad('100 000 characters', 'x'.repeat(100_000)),
  bad('control characters', 'a\u0000b\u001b[2Jc\r\nd\u009b'),
  bad('empty', ''),
  bad('upper case', 'Web'),
];

/** A path segment: any wrong type and any hostile string. */
export const BAD_SEGMENTS: Bad[] = [...NOT_STRINGS, ...HOSTILE_STRINGS];

/** What a whole, non-negative number option may get. */
export const NOT_COUNTS: Bad[] = [
  bad('a string', '5'),
  bad('negative', -1),
  bad('a fraction', 1.5),
  bad('NaN', Number.NaN),
  bad('Infinity', Number.POSITIVE_INFINITY),
  bad('an object', {}),
];

/** What a function option (a transform, a reconcile) may get. */
export const NOT_FUNCTIONS: Bad[] = [
  bad('null', null),
  bad('a string', 'reconcile'),
  bad('an object', {}),
];
