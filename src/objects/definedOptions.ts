/**
 * Options without the keys whose value is `undefined`: what a request is made of, so that
 * `{ namespace: undefined }` and `{}` ask for the same thing and compare equal.
 *
 * @example
 * definedOptions({ namespace: undefined, labelSelector: 'app=web' }); // { labelSelector: 'app=web' }
 */
export function definedOptions<O extends object>(options: O): O {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (value !== undefined) out[key] = value;
  return out as O;
}
