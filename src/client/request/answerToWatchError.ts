import { WatchError } from '../../WatchError.js';

/** A non-2xx answer, as far as its error is concerned. */
export interface ErrorAnswer {
  statusCode: number;
  statusText: string;
  retryAfter: string | null | undefined;
  /** The start of the body (a Status, when the server sent one). */
  body: string;
}

/**
 * The {@link WatchError} for a non-2xx answer, from the Status in its body; a redirect is
 * reported as not followed.
 *
 * @example
 * answerToWatchError({ statusCode: 403, statusText: 'Forbidden', retryAfter: null, body }, path);
 */
export function answerToWatchError(answer: ErrorAnswer, resourcePath: string): WatchError {
  let status: unknown;
  try {
    status = JSON.parse(answer.body);
  } catch {
    status = undefined;
  }
  const isRedirect = answer.statusCode >= 300 && answer.statusCode < 400;
  return WatchError.fromStatus(status, resourcePath, {
    fallbackCode: answer.statusCode,
    fallbackMessage: isRedirect
      ? `redirect not followed (${answer.statusText || 'redirect'})`
      : answer.statusText || undefined,
    retryAfterHeader: answer.retryAfter,
  });
}
