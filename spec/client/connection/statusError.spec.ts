import { WatchError } from '../../../src/WatchError.js';
import { describe, expect, it } from '@jest/globals';
import { rememberCredentials } from '../../../src/client/connection/rememberCredentials.js';
import {
  MAX_DETAIL_CHARS,
  redactDeep,
  redactSecrets,
  redactedCause,
} from '../../../src/security/redactSecrets.js';

describe('statusToWatchError', () => {
  it('takes code, reason, message and retryAfterSeconds from the Status', () => {
    const error = WatchError.fromStatus(
      {
        kind: 'Status',
        code: 429,
        reason: 'TooManyRequests',
        message: 'slow down',
        details: { retryAfterSeconds: 3 },
      },
      '/api/v1/pods',
    );
    expect(error).toMatchObject({
      errorType: 'TOO_MANY_REQUESTS',
      statusCode: 429,
      reason: 'TooManyRequests',
      retryAfterSeconds: 3,
    });
    expect(error.message).toContain('slow down');
  });

  it.each([[410.5], [0], [999], ['410'], [-1], [null]])(
    'a Status code of %j falls back to the HTTP status',
    (code) => {
      expect(WatchError.fromStatus({ code }, '/p', { fallbackCode: 503 })).toMatchObject({
        statusCode: 503,
        errorType: 'SYSTEM_ERROR',
      });
    },
  );

  it.each([
    ['2', 2],
    [' 7 ', 7],
    ['-5', undefined],
    ['soon', undefined],
    [new Date(Date.now() + 4500).toUTCString(), expect.any(Number)],
  ])('reads Retry-After %j as %p seconds', (header, seconds) => {
    expect(
      WatchError.fromStatus(undefined, '/p', { fallbackCode: 503, retryAfterHeader: header })
        .retryAfterSeconds,
    ).toEqual(seconds);
  });
});

describe('credential redaction', () => {
  it('removes the exact credential values a request carried, wherever they appear', () => {
    rememberCredentials('https://admin:url-p4ssword@10.0.0.1:6443', {
      authorization: 'Bearer exact-token-value-1',
    });
    const text = redactSecrets('token exact-token-value-1 and password url-p4ssword were rejected');
    expect(text).not.toContain('exact-token-value-1');
    expect(text).not.toContain('url-p4ssword');
  });

  it('remembers a Basic password, decoded', () => {
    rememberCredentials('https://x', {
      authorization: `Basic ${Buffer.from('alice:basic-s3cret').toString('base64')}`,
    });
    expect(redactSecrets('user alice with basic-s3cret')).not.toContain('basic-s3cret');
  });

  it('drops user info and queries from URLs, and cuts long messages', () => {
    expect(
      redactSecrets('request to http://bob:pw@h:1/api/v1/pods?labelSelector=a%3Db failed'),
    ).toBe('request to http://h:1/api/v1/pods failed');
    expect(redactSecrets('x'.repeat(MAX_DETAIL_CHARS * 3)).length).toBe(MAX_DETAIL_CHARS + 1);
  });

  it('redacts every string of a Status kept on an error, and the message of a cause', () => {
    rememberCredentials('https://x', { authorization: 'Bearer deep-token-value-2' });
    const status = redactDeep({
      message: 'saw deep-token-value-2',
      details: { causes: [{ message: 'deep-token-value-2' }] },
    });
    expect(JSON.stringify(status)).not.toContain('deep-token-value-2');
    const cause = Object.assign(new Error('connect to http://u:deep-token-value-2@h failed'), {
      code: 'ECONNREFUSED',
    });
    const copy = redactedCause(cause);
    expect(copy.message).not.toContain('deep-token-value-2');
    expect((copy as { code?: string }).code).toBe('ECONNREFUSED');
    expect(WatchError.network('/p', cause).message).not.toContain('deep-token-value-2');
  });
});
