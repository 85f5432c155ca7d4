import { ResettingTable } from './internal/ResettingTable.js';

/** Longer strings are left alone: hashes and certificates repeat less and cost more to look up. */
const MAX_STRING_CHARS = 128;

/** Distinct strings, up to 8 Mi characters of them. */
const strings = new ResettingTable<string>(8 * 1024 * 1024);

/**
 * A ready `transform` that makes equal string values in the objects it sees one string: the
 * images, node names, label values, owners and times that thousands of objects repeat are then
 * kept once instead of once per object (about a quarter less heap for a typical pod, at the
 * cost of a walk over each object as it is decoded). Object keys are shared by JavaScript
 * already. Strings up to 128 characters, in a table of at most 8 Mi characters that starts again
 * when full. Nothing else changes: strings cannot be modified, so sharing them is invisible.
 *
 * ```
 * decoded: --ADDED{image: 'nginx:1.27'}--ADDED{image: 'nginx:1.27' (a second copy)}--
 * shared:  --ADDED{image: 'nginx:1.27'}--ADDED{image: the same string}-------------
 * ```
 *
 * @example
 * resilientWatch(kc, pods, { transform: (pod) => shareStrings(stripManagedFields(pod)) })
 *   .pipe(toStore());
 */
export function shareStrings<T>(object: T): T {
  if (object !== null && typeof object === 'object') shareIn(object as Record<string, unknown>);
  return object;
}

function shareIn(value: Record<string, unknown> | unknown[]): void {
  // Frozen parts (field sets shared by shareManagedFields, say) are someone else's.
  if (Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      // Equal strings compare equal whichever copy they are: the copy is replaced unasked.
      if (typeof item === 'string') value[i] = shared(item);
      else if (item !== null && typeof item === 'object') shareIn(item as Record<string, unknown>);
    }
    return;
  }
  for (const key in value) {
    const item = value[key];
    if (typeof item === 'string') value[key] = shared(item);
    else if (item !== null && typeof item === 'object') shareIn(item as Record<string, unknown>);
  }
}

function shared(text: string): string {
  if (text.length > MAX_STRING_CHARS) return text;
  return strings.get(text) ?? strings.set(text, text);
}
