/**
 * A string that is equal for two values exactly when they are structurally equal as JSON: object
 * keys are sorted, so `{ a: 1, b: 2 }` and `{ b: 2, a: 1 }` agree. `undefined` (and a function or
 * symbol, which JSON cannot carry) has its own key, distinct from `null`.
 */
export function structuralKey(value: unknown): string {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    return '\u0000undefined';
  }
  // Primitives (the common case: a generation number) need no walk.
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  return JSON.stringify(value, sortedKeys);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}
