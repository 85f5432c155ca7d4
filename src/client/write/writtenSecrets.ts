import { WatchError } from '../../WatchError.js';
import type { FieldConflict } from '../../WatchError.js';
import { REDACTED } from '../../security/redactSecrets.js';
import type { ResourceRef } from '../../types.js';

/** Shorter values are left alone: redacting `a` or `1` would garble every message. */
const MIN_VALUE_LENGTH = 4;

/**
 * The values of a Secret that a write sends (`data`, `stringData`, and a JSON patch's values
 * under them), in the forms a server could echo: as sent, JSON-escaped, and base64-decoded.
 * Empty for anything that is not a Secret.
 *
 * @example
 * writtenSecrets(secretsRef, { kind: 'Secret', data: { password: 'czNjcjN0' } }); // ['czNjcjN0', 's3cr3t']
 */
export function writtenSecrets(resource: ResourceRef<unknown>, body: unknown): string[] {
  const isSecretRef = resource.group === '' && resource.plural === 'secrets';
  const kind = (body as { kind?: unknown } | null)?.kind;
  if (!isSecretRef && kind !== 'Secret') return [];
  const values: string[] = [];
  const collect = (value: unknown, depth = 0) => {
    if (typeof value === 'string') values.push(...forms(value));
    else if (typeof value === 'object' && value !== null && depth < 8)
      for (const v of Object.values(value)) collect(v, depth + 1);
  };
  if (Array.isArray(body)) {
    // A JSON patch: every value it writes under /data or /stringData.
    for (const op of body as { path?: unknown; value?: unknown }[])
      if (typeof op?.path === 'string' && /^\/(data|stringData)(\/|$)/.test(op.path))
        collect(op.value);
  } else if (typeof body === 'object' && body !== null) {
    const { data, stringData } = body as { data?: unknown; stringData?: unknown };
    collect(data);
    collect(stringData);
  }
  return [...new Set(values)].filter((v) => v.length >= MIN_VALUE_LENGTH);
}

function forms(value: string): string[] {
  const out = [value, JSON.stringify(value).slice(1, -1)];
  try {
    const binary = atob(value);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    out.push(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    // Not base64 (stringData), or not text once decoded: the value as sent is enough.
  }
  return out;
}

/**
 * `error` with every one of `values` replaced by `<redacted>` in its message, reason, Status
 * (at any depth, keys too), conflicts and cause: a server that echoes a refused Secret (a 422
 * that quotes the value, a proxy that prints the body) cannot put its data into a log line.
 *
 * @example
 * throw withoutValues(error, writtenSecrets(secrets, body));
 */
export function withoutValues(error: WatchError, values: string[]): WatchError {
  if (values.length === 0) return error;
  const longestFirst = [...values].sort((a, b) => b.length - a.length);
  const clean = (text: string) => {
    for (const value of longestFirst)
      if (text.includes(value)) text = text.split(value).join(REDACTED);
    return text;
  };
  const cleanDeep = (value: unknown): unknown => {
    if (typeof value === 'string') return clean(value);
    if (Array.isArray(value)) return value.map(cleanDeep);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), cleanDeep(v)]));
  };
  let cause: Error | undefined;
  if (error.cause instanceof Error) {
    cause = new Error(clean(error.cause.message));
    cause.name = error.cause.name;
  }
  return new WatchError(clean(error.message), {
    errorType: error.errorType,
    statusCode: error.statusCode,
    resourcePath: error.resourcePath,
    ...(error.reason !== undefined && { reason: clean(error.reason) }),
    ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }),
    ...(error.status !== undefined && { status: cleanDeep(error.status) as object }),
    ...(error.conflicts !== undefined && {
      conflicts: cleanDeep(error.conflicts) as FieldConflict[],
    }),
    ...(cause !== undefined && { cause }),
  });
}
