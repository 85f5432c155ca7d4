import { describe, expect, it } from '@jest/globals';
import {
  WatchError,
  errorTypeForStatus,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
} from '../src/WatchError.js';
import { rememberCredentials } from '../src/client/connection/rememberCredentials.js';

// The named constructors are the one place a WatchError is built in src/ (besides the test kit's
// watchError builder): each kind of failure gets its type, status and message shape here.
describe('WatchError named constructors', () => {
  const path = '/api/v1/namespaces/default/pods';

  it('network: SYSTEM_ERROR 0, the cause sanitised into the message and redacted as cause', () => {
    rememberCredentials('https://example.invalid', { authorization: 'Bearer tok-network-1' });
    const error = WatchError.network(
      path,
      new Error('reset\u001b[2K tok-network-1'),
      'the watch stream failed',
    );
    expect([error.errorType, error.statusCode, error.resourcePath]).toEqual([
      'SYSTEM_ERROR',
      0,
      path,
    ]);
    expect(error.message).toMatch(/^the watch stream failed: reset/);
    expect(error.message).not.toContain('\u001b');
    expect(error.message).not.toContain('tok-network-1');
    expect(String((error.cause as Error).message)).not.toContain('tok-network-1');
    expect(WatchError.network(path, 'x').message).toBe(`request failed: x (${path})`);
  });

  it('idle and stream: SYSTEM_ERROR 0 with the message as given', () => {
    for (const error of [
      WatchError.idle('watch idle', path),
      WatchError.stream('very short', path),
    ]) {
      expect([error.errorType, error.statusCode, error.resourcePath]).toEqual([
        'SYSTEM_ERROR',
        0,
        path,
      ]);
    }
    expect(WatchError.idle('watch idle', path).message).toBe('watch idle');
  });

  it('parse: PARSE_ERROR, status 0 unless the answer had one, and its cause', () => {
    const cause = new SyntaxError('bad');
    const error = WatchError.parse(path, 'the list answer is not JSON', cause);
    expect([error.errorType, error.statusCode, error.cause]).toEqual(['PARSE_ERROR', 0, cause]);
    expect(error.message).toBe(`the list answer is not JSON (${path})`);
    expect(WatchError.parse(path, 'not JSON', undefined, 200).statusCode).toBe(200);
  });

  it('badRequest: BAD_REQUEST 400; unauthorized: UNAUTHORIZED_ERROR 401, redacted', () => {
    const bad = WatchError.badRequest(path, 'limit must be a whole number');
    expect([bad.errorType, bad.statusCode, bad.message]).toEqual([
      'BAD_REQUEST',
      400,
      `limit must be a whole number (${path})`,
    ]);
    const denied = WatchError.unauthorized(path, new Error('plugin printed Bearer tok-plugin-2'));
    expect([denied.errorType, denied.statusCode]).toEqual(['UNAUTHORIZED_ERROR', 401]);
    expect(denied.message).toMatch(/^could not resolve credentials: plugin printed/);
    expect(denied.message).not.toContain('tok-plugin-2');
  });

  it('aborted: SYSTEM_ERROR 0', () => {
    const error = WatchError.aborted(path);
    expect([error.errorType, error.statusCode, error.message]).toEqual([
      'SYSTEM_ERROR',
      0,
      `aborted (${path})`,
    ]);
  });

  it('from: a WatchError as it is; a system error SYSTEM_ERROR, anything else UNKNOWN_ERROR', () => {
    const existing = WatchError.aborted(path);
    expect(WatchError.from(existing, 'ctx')).toBe(existing);
    const reset = Object.assign(new Error('read ECONNRESET'), { syscall: 'read' });
    expect(WatchError.from(reset, "source 'pods' failed")).toMatchObject({
      errorType: 'SYSTEM_ERROR',
      statusCode: 0,
      message: "source 'pods' failed: read ECONNRESET",
      cause: reset,
    });
    expect(WatchError.from('boom', 'ctx').errorType).toBe('UNKNOWN_ERROR');
  });

  it('fromStatus: code, reason and Retry-After of a Status, the HTTP status when it has none', () => {
    const gone = WatchError.fromStatus({ code: 410, reason: 'Expired', message: 'too old' }, path);
    expect([gone.errorType, gone.statusCode, gone.reason]).toEqual(['GONE', 410, 'Expired']);
    expect(gone.message).toBe(`410 Expired: too old (${path})`);
    const busy = WatchError.fromStatus(undefined, path, {
      fallbackCode: 429,
      retryAfterHeader: '7',
    });
    expect([busy.errorType, busy.statusCode, busy.retryAfterSeconds]).toEqual([
      'TOO_MANY_REQUESTS',
      429,
      7,
    ]);
  });
});

// A server-side apply conflict exactly as kube-apiserver answers it (recorded).
const APPLY_CONFLICT = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'Apply failed with 2 conflicts: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas\nconflict with "hpa \\"x\\"" using apps/v1: .spec.template.spec.containers[name="main"].image',
  reason: 'Conflict',
  details: {
    causes: [
      {
        type: 'FieldManagerConflict',
        message: 'conflict with "kubectl-client-side-apply" using apps/v1',
        field: '.spec.replicas',
      },
      { type: 'FieldValueInvalid', message: 'not a conflict', field: '.spec' },
      {
        type: 'FieldManagerConflict',
        message: 'conflict with "hpa \\"x\\"\u001b[2K" using apps/v1',
        field: '.spec.template.spec.containers[name="main"].image',
      },
    ],
  },
  code: 409,
};

describe('WatchError: writes (409, 422) and the predicates', () => {
  const path = '/apis/apps/v1/namespaces/shop/deployments/web';

  it('maps 409 to CONFLICT and 422 to INVALID; other 4xx stay UNKNOWN_ERROR', () => {
    expect([409, 422, 418, 405].map(errorTypeForStatus)).toEqual([
      'CONFLICT',
      'INVALID',
      'UNKNOWN_ERROR',
      'UNKNOWN_ERROR',
    ]);
  });

  it('a server-side apply conflict carries one entry per FieldManagerConflict cause, sanitised', () => {
    const error = WatchError.fromStatus(APPLY_CONFLICT, path);
    expect([error.errorType, error.statusCode, error.reason]).toEqual([
      'CONFLICT',
      409,
      'Conflict',
    ]);
    expect(error.conflicts).toEqual([
      {
        manager: 'kubectl-client-side-apply',
        field: '.spec.replicas',
        message: 'conflict with "kubectl-client-side-apply" using apps/v1',
      },
      {
        manager: 'hpa "x"\\u001b[2K',
        field: '.spec.template.spec.containers[name="main"].image',
        message: 'conflict with "hpa \\"x\\"\\u001b[2K" using apps/v1',
      },
    ]);
    expect(isConflict(error)).toBe(true);
    // A stale resourceVersion is a conflict without causes; so is a 409 with no reason.
    const stale = WatchError.fromStatus({ code: 409, reason: 'Conflict', message: 'stale' }, path);
    expect(stale.conflicts).toBeUndefined();
    expect(isConflict(stale)).toBe(true);
    expect(isConflict(WatchError.fromStatus(undefined, path, { fallbackCode: 409 }))).toBe(true);
    // Causes of another code are not conflicts.
    const other = WatchError.fromStatus({ ...APPLY_CONFLICT, code: 422, reason: 'Invalid' }, path);
    expect(other.conflicts).toBeUndefined();
  });

  it('the predicates read reason first, then the code, as client-go does', () => {
    const status = (code: number, reason?: string) =>
      WatchError.fromStatus({ code, reason, message: 'x' }, path);
    const exists = status(409, 'AlreadyExists');
    expect([isConflict(exists), isAlreadyExists(exists)]).toEqual([false, true]);
    expect(isAlreadyExists(status(409, 'Conflict'))).toBe(false);
    expect(isConflict(status(409, 'SomethingNew'))).toBe(true);
    expect([isNotFound(status(404, 'NotFound')), isNotFound(status(404))]).toEqual([true, true]);
    expect(isNotFound(status(404, 'Gone'))).toBe(false);
    expect([isInvalid(status(422, 'Invalid')), isInvalid(status(422))]).toEqual([true, true]);
    expect(isInvalid(status(400, 'BadRequest'))).toBe(false);
    expect([
      isGone(status(410, 'Expired')),
      isGone(status(410, 'Gone')),
      isGone(status(410)),
    ]).toEqual([true, true, true]);
    for (const predicate of [isConflict, isAlreadyExists, isNotFound, isInvalid, isGone]) {
      expect(predicate(new Error('409 Conflict'))).toBe(false);
      expect(predicate(undefined)).toBe(false);
      expect(predicate(status(500, 'InternalError'))).toBe(false);
    }
  });
});
