import { BUILTIN_RESOURCES } from '../../objects/builtinResources.js';
import { kindOfPlural } from '../../objects/ResourceType.js';

const KNOWN_KINDS = new Map(BUILTIN_RESOURCES.map((r) => [r.plural, r.kind]));

/**
 * The kind for a plural: known core/apps/... plurals, otherwise a singularised, capitalised
 * plural (`widgets` -> `Widget`, `policies` -> `Policy`). A store adopts the `kind` of the first
 * object created with one, so custom resources get their real kind.
 */
export function kindForPlural(plural: string): string {
  const known = KNOWN_KINDS.get(plural);
  if (known !== undefined) return known;
  return kindOfPlural(plural);
}
