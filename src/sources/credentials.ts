/**
 * Keeps credentials out of every message, log line and error kube-rx makes. Patterns catch the
 * usual phrasings ("Bearer x", "token=x"); beyond them, kube-rx knows the exact values it sent
 * (it resolved them), so it remembers the latest few and removes them wherever they appear:
 * a 401 body that echoes the Authorization header, a credential plugin that prints the token it
 * issued before, a password in the server URL.
 */

/** How many credential values are remembered (the most recent ones). */
const MAX_REMEMBERED = 64;
/** Shorter values are not credentials worth the false positives (and cannot be redacted safely). */
const MIN_SECRET_LENGTH = 6;
/** The longest message detail kept from a server: a Status message can be megabytes. */
export const MAX_DETAIL_CHARS = 4096;

const remembered = new Set<string>();

function remember(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  remembered.delete(value);
  remembered.add(value);
  if (remembered.size > MAX_REMEMBERED)
    remembered.delete(remembered.values().next().value as string);
}

/**
 * Remembers the credential values of a request about to be sent: the Authorization header's
 * credentials (and a Basic password), and a user or password in the server URL.
 */
export function rememberCredentials(server: string, headers: Record<string, string>): void {
  const authorization = headers.authorization;
  if (authorization) {
    const space = authorization.indexOf(' ');
    const credentials = space === -1 ? authorization : authorization.slice(space + 1).trim();
    remember(credentials);
    if (/^basic$/i.test(authorization.slice(0, space))) {
      const decoded = Buffer.from(credentials, 'base64').toString('utf8');
      remember(decoded);
      remember(decoded.slice(decoded.indexOf(':') + 1));
    }
  }
  try {
    const url = new URL(server);
    remember(decodeURIComponent(url.password));
    remember(url.password);
  } catch {
    // Not a URL: nothing to remember.
  }
}

/**
 * A message without credentials: known values and the usual patterns replaced by `<redacted>`,
 * user info and query strings dropped from URLs, and cut to {@link MAX_DETAIL_CHARS}.
 *
 * @example
 * redactSecrets('401: invalid bearer token "abc123xyz"'); // '401: invalid bearer <redacted>'
 */
export function redactSecrets(message: string): string {
  let text = message.length > MAX_DETAIL_CHARS ? `${message.slice(0, MAX_DETAIL_CHARS)}…` : message;
  for (const secret of remembered)
    if (text.includes(secret)) text = text.split(secret).join('<redacted>');
  return text
    .replace(/\b(https?:\/\/)[^\s/@]*@/gi, '$1')
    .replace(/\b(https?:\/\/[^\s?#"']*)\?[^\s#"']*/gi, '$1')
    .replace(/(bearer|basic)\s+[^\s"',;]+/gi, '$1 <redacted>')
    .replace(
      /("?(?:token|password|access_token|id-token|refresh-token)"?\s*[:=]\s*)"?[^\s"',;}]+"?/gi,
      '$1<redacted>',
    );
}

/** A copy of a JSON value whose every string went through {@link redactSecrets}. */
export function redactDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (typeof value !== 'object' || value === null || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = redactDeep(v, depth + 1);
  return out as T;
}

/** An error to keep as a `cause`: the original's message redacted, its code kept, no URL. */
export function redactedCause(cause: unknown): Error {
  const original = cause instanceof Error ? cause : new Error(String(cause));
  const copy = new Error(redactSecrets(original.message));
  copy.name = original.name;
  const code = (original as { code?: unknown }).code ?? (original as { errno?: unknown }).errno;
  if (code !== undefined) (copy as { code?: unknown }).code = code;
  return copy;
}
