/** The kinds of failure a watch reports; see {@link errorTypeForStatus}. */
export type WatchErrorType =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED_ERROR'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'GONE'
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
  /** The underlying error (becomes the Error's `cause`). */
  cause?: unknown;
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

  constructor(message: string, init: WatchErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.errorType = init.errorType;
    this.statusCode = init.statusCode;
    this.resourcePath = init.resourcePath;
    if (init.reason !== undefined) this.reason = init.reason;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.status !== undefined) this.status = init.status;
  }
}

/**
 * Maps an HTTP or Status code to a {@link WatchErrorType}: 400 BAD_REQUEST, 401 UNAUTHORIZED_ERROR,
 * 403 FORBIDDEN, 404 NOT_FOUND, 410 GONE, 429 TOO_MANY_REQUESTS, 5xx and 0 (network) SYSTEM_ERROR,
 * anything else UNKNOWN_ERROR.
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
    case 410:
      return 'GONE';
    case 429:
      return 'TOO_MANY_REQUESTS';
    default:
      return statusCode === 0 || (statusCode >= 500 && statusCode < 600)
        ? 'SYSTEM_ERROR'
        : 'UNKNOWN_ERROR';
  }
}
