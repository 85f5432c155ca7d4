/** How far into a list page its ListMeta is looked for: the API server writes it first. */
const HEAD_CHARS = 4096;
// `{"kind":"PodList","apiVersion":"v1","metadata":{...}` in any order of the first two: ListMeta
// holds only strings and numbers (selfLink, resourceVersion, continue, remainingItemCount).
const LIST_HEAD =
  /^\s*\{\s*(?:"(?:kind|apiVersion)"\s*:\s*"[^"\\]*"\s*,\s*)*"metadata"\s*:\s*\{([^{}]*)\}/;
const CONTINUE = /"continue"\s*:\s*"([^"\\]+)"/;

/**
 * The continue token of a list page read from the head of its text, before the page is parsed,
 * so that the next page can be asked for while this one is decoded; undefined when the head is
 * not the API server's layout or has no token. The parsed page has the last word: a token peeked
 * wrongly only costs a request that is aborted.
 *
 * @example
 * peekContinueToken('{"kind":"PodList","apiVersion":"v1","metadata":{"continue":"abc"},"items":[]}'); // 'abc'
 */
export function peekContinueToken(text: string): string | undefined {
  const listMeta = LIST_HEAD.exec(text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text);
  return listMeta ? CONTINUE.exec(listMeta[1])?.[1] : undefined;
}
