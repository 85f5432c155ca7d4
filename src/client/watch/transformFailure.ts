/**
 * The message of a transform that threw, without the object (not ours to print): what a watch
 * line or a list item that could not be decoded says.
 *
 * @example
 * transformFailure(new Error('no spec')); // 'the transform threw: no spec'
 */
export function transformFailure(cause: unknown): string {
  const why = cause instanceof Error ? cause.message : String(cause);
  return `the transform threw: ${why.slice(0, 200)}`;
}
