import type { WatchError } from '../../WatchError.js';

/**
 * What a failure means for a resumed watch:
 * - `expired`: the cursor is too old (410); only a relist recovers.
 * - `unauthorized`: 401; the source resolves credentials per request, so one retry may succeed.
 * - `refused`: the request itself is wrong for this server (400, 403, 404, 409, 422 Invalid,
 *   other 4xx), or it was redirected (never followed); repeating it cannot help.
 * - `transient`: network, 5xx, 429, idle, unreadable stream, anything without a 4xx code.
 */
export type FailureKind = 'expired' | 'unauthorized' | 'refused' | 'transient';

export function classifyFailure(error: WatchError): FailureKind {
  switch (error.errorType) {
    case 'GONE':
      return 'expired';
    case 'UNAUTHORIZED_ERROR':
      return 'unauthorized';
    case 'BAD_REQUEST':
    case 'FORBIDDEN':
    case 'NOT_FOUND':
    case 'CONFLICT':
    case 'INVALID':
      return 'refused';
    case 'UNKNOWN_ERROR':
      // 408 Request Timeout is the one 4xx that says "try again".
      return (error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 408) ||
        (error.statusCode >= 300 && error.statusCode < 400)
        ? 'refused'
        : 'transient';
    default:
      return 'transient';
  }
}
