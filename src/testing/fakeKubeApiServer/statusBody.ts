import { STATUS_CODES } from 'node:http';
import { isGone } from './protocol.js';
import type { Reply } from './protocol.js';

/** A `metav1.Status` object as kube-apiserver sends it for failures. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  details?: { name?: string; kind?: string; retryAfterSeconds?: number };
  code: number;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The Kubernetes `reason` for an HTTP code (`'Unknown'` when it has none). */
function reasonFor(code: number): string {
  return REASONS[code] ?? 'Unknown';
}

/** Builds a failure Status; `reason` and `message` default from the code. */
export function statusBody(
  code: number,
  message?: string,
  reason?: string,
  details?: KubeStatus['details'],
): KubeStatus {
  const status: KubeStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: message ?? defaultMessage(code),
    reason: reason ?? reasonFor(code),
    code,
  };
  if (details !== undefined) status.details = details;
  return status;
}

function defaultMessage(code: number): string {
  if (code === 401) return 'Unauthorized';
  const text = STATUS_CODES[code] ?? 'Unknown';
  return `the server responded with status ${code} (${text})`;
}

/** Writes `status` as the whole JSON response, with `Retry-After` when `details` carry it. */
export function sendStatus(res: Reply, status: KubeStatus, keepAlive = true): void {
  if (res.headersSent || isGone(res)) return;
  const body = JSON.stringify(status);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-cache, private',
  };
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined) headers['Retry-After'] = String(retry);
  if (!keepAlive) headers.Connection = 'close';
  res.writeHead(status.code, headers);
  res.end(body);
}

/** Thrown inside the server to answer with a Status. */
export class StatusError extends Error {
  constructor(readonly status: KubeStatus) {
    super(status.message);
  }
}

/** Shorthand for a 400 BadRequest {@link StatusError}. */
export function badRequest(message: string): StatusError {
  return new StatusError(statusBody(400, message, 'BadRequest'));
}

/** The 410 Expired Status for a resourceVersion older than what the server keeps. */
export function tooOld(requested: number | string, oldest: number): KubeStatus {
  return statusBody(410, `too old resource version: ${requested} (${oldest})`, 'Expired');
}

/** The 504 Status for a resourceVersion the server has not reached yet. */
export function tooLarge(requested: number, current: number): KubeStatus {
  return statusBody(
    504,
    `Too large resource version: ${requested}, current: ${current}`,
    'Timeout',
  );
}
