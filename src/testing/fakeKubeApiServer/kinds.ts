import { BUILTIN_RESOURCES } from './builtinResources.js';

const KNOWN_KINDS = new Map(BUILTIN_RESOURCES.map((r) => [r.plural, r.kind]));

/**
 * The kind for a plural: known core/apps/... plurals, otherwise a singularised, capitalised
 * plural (`widgets` -> `Widget`, `policies` -> `Policy`). A store adopts the `kind` of the first
 * object created with one, so custom resources get their real kind.
 */
export function kindForPlural(plural: string): string {
  const known = KNOWN_KINDS.get(plural);
  if (known !== undefined) return known;
  let singular = plural;
  if (/ies$/.test(plural)) singular = plural.slice(0, -3) + 'y';
  else if (/(s|x|z|ch|sh)es$/.test(plural)) singular = plural.slice(0, -2);
  else if (/s$/.test(plural)) singular = plural.slice(0, -1);
  return singular.charAt(0).toUpperCase() + singular.slice(1);
}
