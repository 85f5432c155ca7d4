import { redactDeep, redactedCause, redactSecrets } from './security/redactSecrets.js';
import { serverTextForMessage } from './security/sanitizeText.js';

/** The kinds of failure a watch reports; see {@link errorTypeForStatus}. */
export type WatchErrorType =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED_ERROR'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'GONE'
  | 'CONFLICT'
  | 'INVALID'
  | 'TOO_MANY_REQUESTS'
  | 'SYSTEM_ERROR'
  | 'PARSE_ERROR'
  | 'UNKNOWN_ERROR';

/** What a {@link WatchError} is made from. */
export interface WatchErrorInit {
  /** See {@link WatchError.errorType}. */
  errorType: WatchErrorType;
  /** See {@link WatchError.statusCode}. */
  statusCode: number;
  /** See {@link WatchError.resourcePath}. */
  resourcePath: string;
  /** See {@link WatchError.reason}. */
  reason?: string;
  /** See {@link WatchError.retryAfterSeconds}. */
  retryAfterSeconds?: number;
  /** See {@link WatchError.status}. */
  status?: object;
  /** See {@link WatchError.conflicts}. */
  conflicts?: FieldConflict[];
  /** The underlying error (becomes the Error's `cause`). */
  cause?: unknown;
}

/**
 * One field a server-side apply could not take over: another field manager owns it with a
 * different value (a `FieldManagerConflict` cause of the 409 Status).
 *
 * @example
 * const c: FieldConflict = { manager: 'kubectl-client-side-apply', field: '.spec.replicas', message: 'conflict with ...' };
 */
export interface FieldConflict {
  /** The field manager that owns the field, e.g. `'kubectl-client-side-apply'`. */
  manager: string;
  /** The field's path as the server names it, e.g. `'.spec.replicas'`. */
  field: string;
  /** The cause's message, sanitised. */
  message: string;
}

/**
 * A failure of a watch or list: an ERROR event's payload, and what resilient streams error with.
 * `resourcePath` is the request path without its query, so it never carries a selector or a token.
 *
 * @example
 * fromWatch(kc, pods).pipe(throwOnWatchError()).subscribe({
 *   error: (e) => {
 *     if (e instanceof WatchError && e.errorType === 'FORBIDDEN') console.error('no RBAC for', e.resourcePath);
 *   },
 * });
 */
export class WatchError extends Error {
  /** Always `'WatchError'`. */
  override readonly name = 'WatchError';
  /** The kind of failure, from the status code (see {@link errorTypeForStatus}) or the stream. */
  readonly errorType: WatchErrorType;
  /** HTTP status or the Status object's `code`; 0 for a network failure. */
  readonly statusCode: number;
  /** The request path without its query, e.g. `/api/v1/namespaces/default/pods`. */
  readonly resourcePath: string;
  /** The Status object's `reason`, e.g. `'Expired'` or `'Gone'`. */
  readonly reason?: string;
  /** How long the server asked to wait before retrying (`Retry-After` or the Status details). */
  readonly retryAfterSeconds?: number;
  /** The Kubernetes Status object, when the server sent one. */
  readonly status?: object;
  /**
   * A server-side apply conflict (409): one entry per field another manager owns, from the
   * Status's `details.causes` of type `FieldManagerConflict`.
   */
  readonly conflicts?: FieldConflict[];

  /**
   * A network or stream failure (SYSTEM_ERROR, status 0): a request that could not be made, an
   * answer cut short or malformed whatever its status, a body that broke mid-way. The cause's
   * message is sanitised and its credentials redacted.
   *
   * @example
   * WatchError.network('/api/v1/pods', new Error('ECONNRESET'), 'the watch stream failed');
   */
  static network(resourcePath: string, cause: unknown, what = 'request failed'): WatchError {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new WatchError(serverTextForMessage(`${what}: ${detail} (${resourcePath})`), {
      errorType: 'SYSTEM_ERROR',
      statusCode: 0,
      resourcePath,
      cause: redactedCause(cause),
    });
  }

  /**
   * A watch or list that went silent past its idle bound (SYSTEM_ERROR, status 0).
   *
   * @example
   * WatchError.idle('watch idle: no event or bookmark within 150000 ms', '/api/v1/pods');
   */
  static idle(message: string, resourcePath: string): WatchError {
    return new WatchError(message, { errorType: 'SYSTEM_ERROR', statusCode: 0, resourcePath });
  }

  /**
   * A stream that ended in a way the resumer cannot use (a list without a result, a watch that
   * keeps ending at once): SYSTEM_ERROR, status 0, with no server answer behind it.
   *
   * @example
   * WatchError.stream('the list ended without a result', '/api/v1/pods');
   */
  static stream(message: string, resourcePath: string): WatchError {
    return new WatchError(message, { errorType: 'SYSTEM_ERROR', statusCode: 0, resourcePath });
  }

  /**
   * Stream or answer content kube-rx cannot read (PARSE_ERROR; status 0, or that of a 2xx
   * answer whose body is not what it should be).
   *
   * @example
   * WatchError.parse('/api/v1/pods', 'the list answer is not JSON', cause);
   */
  static parse(resourcePath: string, what: string, cause?: unknown, statusCode = 0): WatchError {
    return new WatchError(`${what} (${resourcePath})`, {
      errorType: 'PARSE_ERROR',
      statusCode,
      resourcePath,
      cause,
    });
  }

  /**
   * Invalid input, refused before any request (BAD_REQUEST, 400).
   *
   * @example
   * WatchError.badRequest('/api/v1/pods', 'limit must be a whole number, not -1');
   */
  static badRequest(resourcePath: string, what: string): WatchError {
    return new WatchError(`${what} (${resourcePath})`, {
      errorType: 'BAD_REQUEST',
      statusCode: 400,
      resourcePath,
    });
  }

  /**
   * Credentials that could not be resolved (UNAUTHORIZED_ERROR, 401; nothing was sent).
   *
   * @example
   * WatchError.unauthorized('/api/v1/pods', new Error('exec plugin failed'));
   */
  static unauthorized(resourcePath: string, cause: unknown): WatchError {
    const why = cause instanceof Error ? cause.message : String(cause);
    const message = redactSecrets(`could not resolve credentials: ${why} (${resourcePath})`);
    return new WatchError(message, {
      errorType: 'UNAUTHORIZED_ERROR',
      statusCode: 401,
      resourcePath,
    });
  }

  /**
   * A request its signal aborted (SYSTEM_ERROR, status 0).
   *
   * @example
   * WatchError.aborted('/api/v1/pods');
   */
  static aborted(resourcePath: string): WatchError {
    return new WatchError(`aborted (${resourcePath})`, {
      errorType: 'SYSTEM_ERROR',
      statusCode: 0,
      resourcePath,
    });
  }

  /**
   * A failure of something that is not a Kubernetes request (a source of `mergeWatches`):
   * itself when it is a WatchError, else SYSTEM_ERROR for a Node.js system error (ECONNRESET,
   * ETIMEDOUT: it carries `syscall`), UNKNOWN_ERROR otherwise; status 0, `message` prefixed.
   *
   * @example
   * WatchError.from(new Error('boom'), "source 'pods' failed"); // UNKNOWN_ERROR
   */
  static from(error: unknown, context: string): WatchError {
    if (error instanceof WatchError) return error;
    const message = error instanceof Error ? error.message : String(error);
    const system = typeof (error as { syscall?: unknown } | null)?.syscall === 'string';
    return new WatchError(`${context}: ${message}`, {
      errorType: system ? 'SYSTEM_ERROR' : 'UNKNOWN_ERROR',
      statusCode: 0,
      resourcePath: '',
      cause: error,
    });
  }

  /**
   * The error a Kubernetes Status object stands for (an in-stream ERROR event's object, or the
   * body of a non-2xx answer): its code (else `fallbackCode`, the HTTP status), reason, message
   * (else `fallbackMessage`), and Retry-After (the Status's details, else `retryAfterHeader`).
   * Server text is sanitised and the Status kept with its secrets redacted.
   *
   * ```
   * {"kind":"Status","code":410,"reason":"Expired","message":"too old"}  ->  GONE, 410, 'Expired'
   * ```
   *
   * @example
   * WatchError.fromStatus({ code: 410, reason: 'Expired', message: 'too old' }, '/api/v1/pods');
   */
  static fromStatus(
    status: unknown,
    resourcePath: string,
    {
      fallbackCode = 500,
      fallbackMessage,
      retryAfterHeader,
    }: { fallbackCode?: number; fallbackMessage?: string; retryAfterHeader?: string | null } = {},
  ): WatchError {
    const s: KubeStatus = isStatus(status) ? status : {};
    const code =
      Number.isInteger(s.code) && s.code! >= 100 && s.code! <= 599 ? s.code! : fallbackCode;
    const reason = typeof s.reason === 'string' && s.reason !== '' ? s.reason : undefined;
    const detail =
      typeof s.message === 'string' && s.message !== ''
        ? s.message
        : (fallbackMessage ?? reason ?? `status ${code}`);
    const retryAfterSeconds = retryAfter(s.details?.retryAfterSeconds, retryAfterHeader);
    const conflicts = code === 409 ? fieldConflicts(s.details?.causes) : undefined;
    return new WatchError(
      serverTextForMessage(`${code}${reason ? ` ${reason}` : ''}: ${detail} (${resourcePath})`),
      {
        errorType: errorTypeForStatus(code),
        statusCode: code,
        resourcePath,
        ...(reason !== undefined && { reason: serverTextForMessage(reason) }),
        ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
        ...(isStatus(status) && { status: redactDeep(status) }),
        ...(conflicts !== undefined && { conflicts }),
      },
    );
  }

  constructor(message: string, init: WatchErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.errorType = init.errorType;
    this.statusCode = init.statusCode;
    this.resourcePath = init.resourcePath;
    if (init.reason !== undefined) this.reason = init.reason;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.status !== undefined) this.status = init.status;
    if (init.conflicts !== undefined) this.conflicts = init.conflicts;
  }
}

/**
 * Maps an HTTP or Status code to a {@link WatchErrorType}: 400 BAD_REQUEST, 401 UNAUTHORIZED_ERROR,
 * 403 FORBIDDEN, 404 NOT_FOUND, 409 CONFLICT (the reason tells `Conflict` from `AlreadyExists`),
 * 410 GONE, 422 INVALID, 429 TOO_MANY_REQUESTS, 5xx and 0 (network) SYSTEM_ERROR, anything else
 * UNKNOWN_ERROR.
 *
 * @example
 * errorTypeForStatus(410); // 'GONE'
 */
export function errorTypeForStatus(statusCode: number): WatchErrorType {
  switch (statusCode) {
    case 400:
      return 'BAD_REQUEST';
    case 401:
      return 'UNAUTHORIZED_ERROR';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 410:
      return 'GONE';
    case 422:
      return 'INVALID';
    case 429:
      return 'TOO_MANY_REQUESTS';
    default:
      return statusCode === 0 || (statusCode >= 500 && statusCode < 600)
        ? 'SYSTEM_ERROR'
        : 'UNKNOWN_ERROR';
  }
}

/** A Kubernetes `Status` object, as far as kube-rx reads it. */
interface KubeStatus {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { retryAfterSeconds?: number; causes?: unknown };
}

/** `conflict with "kubectl-client-side-apply" using apps/v1`: the manager kube-apiserver names. */
const CONFLICT_MANAGER = /^conflict with "((?:[^"\\]|\\.)*)"/;

/**
 * The `FieldManagerConflict` causes of a 409 Status as {@link FieldConflict}s (server text
 * sanitised), or undefined when it has none.
 */
function fieldConflicts(causes: unknown): FieldConflict[] | undefined {
  if (!Array.isArray(causes)) return undefined;
  const conflicts: FieldConflict[] = [];
  for (const cause of causes) {
    if (!isStatus(cause)) continue;
    const { type, message, field } = cause as {
      type?: unknown;
      message?: unknown;
      field?: unknown;
    };
    if (type !== 'FieldManagerConflict') continue;
    const text = typeof message === 'string' ? message : '';
    // Go's %q quoting: `\"` stands for a quote inside the name.
    const manager = (CONFLICT_MANAGER.exec(text)?.[1] ?? '').replace(/\\(.)/g, '$1');
    conflicts.push({
      manager: serverTextForMessage(manager),
      field: serverTextForMessage(typeof field === 'string' ? field : ''),
      message: serverTextForMessage(text),
    });
  }
  return conflicts.length > 0 ? conflicts : undefined;
}

function isStatus(value: unknown): value is KubeStatus {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Seconds to wait: the Status's own, else the Retry-After header (seconds or an HTTP date). */
function retryAfter(fromStatus: unknown, header: string | null | undefined): number | undefined {
  if (typeof fromStatus === 'number' && Number.isFinite(fromStatus) && fromStatus >= 0)
    return fromStatus;
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return seconds >= 0 ? seconds : undefined;
  }
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The Status reasons kube-apiserver sends (metav1.StatusReason*): a code alone decides otherwise. */
const KNOWN_REASONS = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/** client-go's test: the reason, else the code when the reason is none it knows. */
function hasReason(error: unknown, reason: string, code: number): error is WatchError {
  if (!(error instanceof WatchError)) return false;
  if (error.reason === reason) return true;
  return (
    error.statusCode === code && (error.reason === undefined || !KNOWN_REASONS.has(error.reason))
  );
}

/**
 * Whether a write failed on a stale resourceVersion or a server-side apply conflict (409 with
 * reason `Conflict`, or a 409 without a reason kube-apiserver knows), as client-go's
 * `apierrors.IsConflict`: read again and retry (see `retryOnConflict`). `AlreadyExists` is
 * also a 409 but not a conflict.
 *
 * @example
 * try { await api.replace(deployment); } catch (e) { if (isConflict(e)) console.log('stale, read again'); }
 */
export function isConflict(error: unknown): error is WatchError {
  return hasReason(error, 'Conflict', 409);
}

/**
 * Whether a create failed because the object exists (409 with reason `AlreadyExists`), as
 * client-go's `apierrors.IsAlreadyExists`.
 *
 * @example
 * await api.create(configMap).catch((e) => { if (!isAlreadyExists(e)) throw e; });
 */
export function isAlreadyExists(error: unknown): error is WatchError {
  return error instanceof WatchError && error.reason === 'AlreadyExists';
}

/**
 * Whether the object (or the resource) does not exist (reason `NotFound`, or a 404 without a
 * known reason), as client-go's `apierrors.IsNotFound`.
 *
 * @example
 * await api.delete('web', { namespace: 'shop' }).catch((e) => { if (!isNotFound(e)) throw e; });
 */
export function isNotFound(error: unknown): error is WatchError {
  return hasReason(error, 'NotFound', 404);
}

/**
 * Whether the server refused the object as invalid (reason `Invalid`, or a 422 without a known
 * reason; the Status causes name the fields), as client-go's `apierrors.IsInvalid`.
 *
 * @example
 * await api.create(pod).catch((e) => { if (isInvalid(e)) console.error(e.status); });
 */
export function isInvalid(error: unknown): error is WatchError {
  return hasReason(error, 'Invalid', 422);
}

/**
 * Whether the resourceVersion asked for is gone (410: reason `Gone`, or `Expired` for a watch or
 * list from a version older than the server keeps): both mean list again. client-go splits them
 * (`IsGone`, `IsResourceExpired`); a caller of kube-rx does the same thing for both.
 *
 * @example
 * fromList(kc, pods, { resourceVersion: rv, resourceVersionMatch: 'Exact' }).subscribe({ error: (e) => isGone(e) && relist() });
 */
export function isGone(error: unknown): error is WatchError {
  return (
    error instanceof WatchError &&
    (error.errorType === 'GONE' || error.reason === 'Gone' || error.reason === 'Expired')
  );
}
