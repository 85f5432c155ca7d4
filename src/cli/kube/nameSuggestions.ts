import type { ApiResource } from './Discovery.js';

/**
 * `pods`, `deployments.apps`: the form that names a resource without ambiguity.
 *
 * @example
 * qualifiedName(deploymentsResource); // 'deployments.apps'
 */
export function qualifiedName(r: ApiResource): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

/**
 * Up to three resources whose names are nearest `name` (a typo, a missing or extra letter),
 * as `plural` or `plural.group`.
 *
 * @example
 * suggestions('deploymnets', resources); // ['deployments.apps']
 */
export function suggestions(name: string, resources: readonly ApiResource[]): string[] {
  const scored = new Map<string, number>();
  for (const r of resources) {
    const distance = Math.min(
      ...[r.plural, r.singular, r.kind.toLowerCase(), ...r.shortNames].map((n) =>
        editDistance(name, n),
      ),
    );
    const prefix = r.plural.startsWith(name) || name.startsWith(r.singular);
    if (distance > Math.max(1, Math.floor(name.length / 3)) && !prefix) continue;
    const key = qualifiedName(r);
    scored.set(
      key,
      Math.min(scored.get(key) ?? Infinity, prefix ? Math.min(distance, 1) : distance),
    );
  }
  return [...scored]
    .sort(([a, x], [b, y]) => x - y || a.localeCompare(b))
    .slice(0, 3)
    .map(([key]) => key);
}

/** Levenshtein distance, for suggestions (names are short). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}
