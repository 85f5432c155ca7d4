/**
 * Keeps credentials out of every message, `status`, log line and error kube-rx makes. Patterns
 * catch the usual phrasings ("Bearer x", "token=x"); beyond them, kube-rx knows the exact values
 * it sent (it resolved them), so it remembers the latest few and removes them wherever they
 * appear: a 401 body that echoes the Authorization header, a credential plugin that prints the
 * token it issued before, a password in the server URL.
 *
 * The order matters: every value is removed from the whole text first, and only then is the text
 * cut to a length. Cutting first would keep the part of a token in front of the cut, which no
 * longer matches the value it is a part of.
 */

/** How many credential values are remembered (the most recent ones). */
const MAX_REMEMBERED = 64;
/** Shorter values are not credentials worth the false positives (and cannot be redacted safely). */
const MIN_SECRET_LENGTH = 6;
/** The longest message detail kept from a server: a Status message can be megabytes. */
export const MAX_DETAIL_CHARS = 4096;
/** How deep {@link redactDeep} looks into a value; anything deeper is replaced, not kept. */
export const MAX_REDACT_DEPTH = 32;
/** What a credential becomes. */
export const REDACTED = '<redacted>';
/** What {@link redactDeep} puts in place of a value nested deeper than it checks. */
export const TOO_DEEP = '<redacted: nested too deep>';

const remembered = new Set<string>();
/** The remembered values, longest first: a value that contains another goes as a whole. */
let longestFirst: string[] = [];

/**
 * Remembers one credential value, to remove it from every text from now on. Values shorter than
 * six characters are ignored.
 *
 * @example
 * rememberSecret(token);
 * redactSecrets(`401: ${token} is not valid`); // '401: <redacted> is not valid'
 */
export function rememberSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  remembered.delete(value);
  remembered.add(value);
  if (remembered.size > MAX_REMEMBERED)
    remembered.delete(remembered.values().next().value as string);
  longestFirst = [...remembered].sort((a, b) => b.length - a.length);
}

function removeKnownValues(text: string): string {
  for (const secret of longestFirst)
    if (text.includes(secret)) text = text.split(secret).join(REDACTED);
  return text;
}

/** One URL (up to a space or a quote) without its user info and its query. */
function withoutUserInfoAndQuery(url: string): string {
  const query = url.indexOf('?');
  let kept = url;
  if (query !== -1) {
    const fragment = url.indexOf('#', query);
    kept = url.slice(0, query) + (fragment === -1 ? '' : url.slice(fragment));
  }
  // The authority ends at the first '/', '?' or '#' after the scheme; '@' within it ends user info.
  const scheme = kept.indexOf('//') + 2;
  const authorityEnd = kept.slice(scheme).search(/[/?#]/);
  const authority =
    authorityEnd === -1 ? kept.slice(scheme) : kept.slice(scheme, scheme + authorityEnd);
  const at = authority.lastIndexOf('@');
  return at === -1 ? kept : kept.slice(0, scheme) + kept.slice(scheme + at + 1);
}

// Every pattern runs in time linear in the text (no nested or overlapping repetition): redaction
// now sees the whole text, which a hostile server can make megabytes long.
const URL_PATTERN = /\bhttps?:\/\/[^\s"']*/gi;
const AUTH_SCHEME_PATTERN = /(bearer|basic)\s+[^\s"',;]+/gi;
const CREDENTIAL_FIELD_PATTERN =
  /("?(?:token|password|access_token|id-token|refresh-token)"?\s*[:=]\s*)"?[^\s"',;}]+"?/gi;

function removePatterns(text: string): string {
  return text
    .replace(URL_PATTERN, withoutUserInfoAndQuery)
    .replace(AUTH_SCHEME_PATTERN, `$1 ${REDACTED}`)
    .replace(CREDENTIAL_FIELD_PATTERN, `$1${REDACTED}`);
}

/** `text` cut to `maxChars` (marked with '…'), never between the two halves of a surrogate pair. */
function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const code = text.charCodeAt(maxChars - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars;
  return `${text.slice(0, end)}…`;
}

/**
 * A message without credentials: known values and the usual patterns replaced by `<redacted>`,
 * user info and query strings dropped from URLs, all on the whole text, which is then cut to
 * `maxChars` ({@link MAX_DETAIL_CHARS} unless said otherwise).
 *
 * ```
 * text:    "401: bad token kube-tok-123456 ... (4 096 chars later) ..."
 * result:  "401: bad token <redacted> ... …"   (redacted, then cut)
 * ```
 *
 * @example
 * redactSecrets('401: invalid bearer token "abc123xyz"'); // '401: invalid bearer <redacted>'
 */
export function redactSecrets(message: string, maxChars = MAX_DETAIL_CHARS): string {
  return cut(removePatterns(removeKnownValues(message)), maxChars);
}

/**
 * A copy of a JSON value whose every string, values and object keys alike, went through
 * {@link redactSecrets}. Values nested deeper than {@link MAX_REDACT_DEPTH} are not checked and
 * so not kept: they become {@link TOO_DEEP}.
 *
 * ```
 * value:   { message: 'saw tok-123456', details: { 'tok-123456': 1 }, deep: [[[...40 levels]]] }
 * result:  { message: 'saw <redacted>', details: { '<redacted>': 1 }, deep: [[[...'<redacted: nested too deep>']]] }
 * ```
 *
 * @example
 * const status = redactDeep(JSON.parse(body));
 */
export function redactDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACT_DEPTH) return TOO_DEEP as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, depth + 1)) as T;
  // fromEntries defines own properties: a '__proto__' key stays a key, not a prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [redactSecrets(key), redactDeep(v, depth + 1)]),
  ) as T;
}

/**
 * An error to keep as a `cause`: the original's message redacted, its name and code kept, no
 * stack or properties of the original (they may hold a URL or headers).
 *
 * @example
 * const init = { errorType: 'SYSTEM_ERROR', statusCode: 0, resourcePath, cause: redactedCause(error) };
 */
export function redactedCause(cause: unknown): Error {
  const original = cause instanceof Error ? cause : new Error(String(cause));
  const copy = new Error(redactSecrets(original.message));
  copy.name = original.name;
  const code = (original as { code?: unknown }).code ?? (original as { errno?: unknown }).errno;
  if (code !== undefined) (copy as { code?: unknown }).code = code;
  return copy;
}
