import { describe, expect, it } from '@jest/globals';
import { WatchError } from '../src/WatchError.js';
import { rememberCredentials } from '../src/client/credentials.js';

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
