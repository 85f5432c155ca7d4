import { WatchError, errorTypeForStatus } from '../WatchError.js';
import { redactDeep, redactedCause } from './credentials.js';
import { serverTextForMessage } from '../security/sanitizeText.js';

/** A Kubernetes `Status` object, as far as kube-rx reads it. */
export interface KubeStatus {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { retryAfterSeconds?: number };
}

function isStatus(value: unknown): value is KubeStatus {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The {@link WatchError} for a Status object (an in-stream ERROR event's object, or the body of
 * a non-2xx answer). `fallbackCode` is the HTTP status, used when the Status has no code.
 */
export function statusToWatchError(
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
  return new WatchError(
    serverTextForMessage(`${code}${reason ? ` ${reason}` : ''}: ${detail} (${resourcePath})`),
    {
      errorType: errorTypeForStatus(code),
      statusCode: code,
      resourcePath,
      ...(reason !== undefined && { reason: serverTextForMessage(reason) }),
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
      ...(isStatus(status) && { status: redactDeep(status) }),
    },
  );
}

/** A non-2xx answer, as far as its error is concerned. */
export interface ErrorAnswer {
  statusCode: number;
  statusText: string;
  retryAfter: string | null | undefined;
  /** The start of the body (a Status, when the server sent one). */
  body: string;
}

/** The {@link WatchError} for a non-2xx answer; a redirect is reported as not followed. */
export function answerToWatchError(answer: ErrorAnswer, resourcePath: string): WatchError {
  let status: unknown;
  try {
    status = JSON.parse(answer.body);
  } catch {
    status = undefined;
  }
  const isRedirect = answer.statusCode >= 300 && answer.statusCode < 400;
  return statusToWatchError(status, resourcePath, {
    fallbackCode: answer.statusCode,
    fallbackMessage: isRedirect
      ? `redirect not followed (${answer.statusText || 'redirect'})`
      : answer.statusText || undefined,
    retryAfterHeader: answer.retryAfter,
  });
}

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

/** Invalid input, refused before any request: a {@link WatchError} BAD_REQUEST (400). */
export function badRequest(resourcePath: string, what: string): WatchError {
  return new WatchError(`${what} (${resourcePath})`, {
    errorType: 'BAD_REQUEST',
    statusCode: 400,
    resourcePath,
  });
}

/** Stream or answer content kube-rx cannot read: a {@link WatchError} PARSE_ERROR (status 0). */
export function parseError(resourcePath: string, what: string, cause?: unknown): WatchError {
  return new WatchError(`${what} (${resourcePath})`, {
    errorType: 'PARSE_ERROR',
    statusCode: 0,
    resourcePath,
    cause,
  });
}

/** A network or stream failure as a {@link WatchError} (SYSTEM_ERROR, status 0). */
export function networkError(
  resourcePath: string,
  cause: unknown,
  what = 'request failed',
): WatchError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new WatchError(serverTextForMessage(`${what}: ${detail} (${resourcePath})`), {
    errorType: 'SYSTEM_ERROR',
    statusCode: 0,
    resourcePath,
    cause: redactedCause(cause),
  });
}
