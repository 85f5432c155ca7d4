import { WatchError } from '../../src/WatchError.js';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import {
  MAX_DETAIL_CHARS,
  MAX_REDACT_DEPTH,
  REDACTED,
  TOO_DEEP,
  redactDeep,
  redactSecrets,
  rememberSecret,
} from '../../src/security/redactSecrets.js';
import { answerToWatchError } from '../../src/client/request/answerToWatchError.js';
import { RawServer } from '../support/rawServer.js';
import { everythingFrom } from './support.js';

// 39 hex characters, as the token of issue 19: nothing else in these texts looks like a piece of it.
const TOKEN = randomBytes(20).toString('hex').slice(0, 39);

/** The pieces of TOKEN (8 characters or more) that `text` still holds. */
function piecesOfToken(text: string): string[] {
  const found: string[] = [];
  for (let at = 0; at + 8 <= TOKEN.length; at++)
    if (text.includes(TOKEN.slice(at, at + 8))) found.push(TOKEN.slice(at, at + 8));
  return found;
}

/** A value nested `levels` deep in single-key objects, e.g. {a: {a: {a: value}}}. */
function nested(levels: number, value: unknown, key = 'a'): unknown {
  let out = value;
  for (let i = 0; i < levels; i++) out = { [key]: out };
  return out;
}

beforeAll(() => rememberSecret(TOKEN));

describe('redactSecrets: redaction before truncation', () => {
  // The padding puts the token's first character from 45 characters before the cut to 5 after:
  // every way the cut can split it.
  const paddings = Array.from({ length: 51 }, (_, i) => MAX_DETAIL_CHARS - 45 + i);

  it('removes a known token at every offset around the cut, before cutting', () => {
    for (const padding of paddings) {
      const text = redactSecrets(`${'x'.repeat(padding)}${TOKEN} and after`);
      expect({ padding, pieces: piecesOfToken(text) }).toEqual({ padding, pieces: [] });
      expect(text.length).toBeLessThanOrEqual(MAX_DETAIL_CHARS + 1);
    }
  });

  it('a 401 Status with padding, then the token: no part of it in the WatchError, at any offset', () => {
    // "401 Unauthorized: " comes before the Status message in WatchError.message.
    for (const padding of paddings.map((p) => p - '401 Unauthorized: '.length)) {
      const error = WatchError.fromStatus(
        { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'x'.repeat(padding) + TOKEN },
        '/api/v1/pods',
      );
      expect({ padding, pieces: piecesOfToken(error.message) }).toEqual({ padding, pieces: [] });
      expect(piecesOfToken(JSON.stringify(error.status))).toEqual([]);
      expect(error.errorType).toBe('UNAUTHORIZED_ERROR');
    }
  });

  it('takes linear time on a hostile text (a megabyte of URL starts)', () => {
    const hostile = 'http://'.repeat(150_000) + 'bearer '.repeat(20_000) + 'token: '.repeat(20_000);
    const started = performance.now();
    redactSecrets(hostile);
    // Quadratic patterns take minutes on this; linear ones, milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('keeps what it always did: URL user info and queries dropped, patterns redacted', () => {
    expect(redactSecrets('GET http://bob:pw@h:1/api/v1/pods?labelSelector=a%3Db#f failed')).toBe(
      'GET http://h:1/api/v1/pods#f failed',
    );
    expect(redactSecrets('invalid Bearer abc.def and {"password":"hunter22"}')).toBe(
      `invalid Bearer ${REDACTED} and {"password":${REDACTED}}`,
    );
  });

  it('drops user info and query from a URL whose password is a known value', () => {
    rememberSecret('url-p4ssword');
    expect(
      redactSecrets('to http://admin:url-p4ssword@127.0.0.1:1/api?labelSelector=a%3Db failed'),
    ).toBe('to http://127.0.0.1:1/api failed');
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const text = redactSecrets(`${'x'.repeat(MAX_DETAIL_CHARS - 1)}😀 tail`);
    expect(text).toBe(`${'x'.repeat(MAX_DETAIL_CHARS - 1)}…`);
  });
});

describe('redactDeep: any depth, keys included', () => {
  it(`redacts the token nested ${MAX_REDACT_DEPTH - 1} levels deep and drops what is deeper`, () => {
    const shallow = redactDeep(nested(MAX_REDACT_DEPTH - 1, `saw ${TOKEN}`));
    expect(JSON.stringify(shallow)).toContain(`saw ${REDACTED}`);
    const deep = redactDeep({ message: 'm', details: nested(45, { token: TOKEN, n: 1 }) });
    const text = JSON.stringify(deep);
    expect(piecesOfToken(text)).toEqual([]);
    expect(text).toContain(TOO_DEEP);
    expect(text).toContain('"message":"m"');
  });

  it('redacts a token used as an object key, at any level', () => {
    const status = { kind: 'Status', details: { [TOKEN]: 'x', causes: [{ [`k-${TOKEN}`]: 1 }] } };
    const text = JSON.stringify(redactDeep(status));
    expect(piecesOfToken(text)).toEqual([]);
    expect(text).toContain(`"${REDACTED}":"x"`);
    expect(text).toContain(`"k-${REDACTED}":1`);
  });

  it("keeps a '__proto__' key as a key: it does not become the copy's prototype", () => {
    const copy = redactDeep(JSON.parse('{"__proto__":{"polluted":true}}') as object);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('the Status of a WatchError: deep values and keys redacted, a token written with JSON escapes too', () => {
    // The server writes some of the token's characters as \u escapes: JSON.parse decodes them
    // before redaction sees the text, so the value matches as a whole.
    const escaped = [...TOKEN]
      .map((c, i) => (i % 3 === 0 ? `\\u00${c.charCodeAt(0).toString(16)}` : c))
      .join('');
    const body = `{"kind":"Status","code":401,"reason":"Unauthorized ${escaped}","message":"bad ${escaped}","details":{"${escaped}":${JSON.stringify(nested(40, escaped))}}}`;
    expect(body).not.toContain(TOKEN);
    const error = answerToWatchError(
      { statusCode: 401, statusText: 'Unauthorized', retryAfter: null, body },
      '/api/v1/pods',
    );
    expect(error.errorType).toBe('UNAUTHORIZED_ERROR');
    expect(piecesOfToken(error.message)).toEqual([]);
    expect(piecesOfToken(JSON.stringify(error.status))).toEqual([]);
    expect(piecesOfToken(String(error.reason))).toEqual([]);
    expect(error.message).toContain(`bad ${REDACTED}`);
  });
});

describe('redaction before truncation over HTTP', () => {
  let raw: RawServer | undefined;
  afterEach(async () => {
    await raw?.stop();
    raw = undefined;
  });

  // 4 024 is the case; the others put the cut of "401 Unauthorized: <message>" inside
  // the token as this message reads (18 characters before the padding).
  it.each([4024, 4040, 4060, 4077])(
    'a 401 Status of %i characters of padding, then the token: none of it comes out',
    async (padding) => {
      raw = await RawServer.start((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            code: 401,
            reason: 'Unauthorized',
            message: 'x'.repeat(padding) + TOKEN,
          }),
        );
      });
      const texts = await everythingFrom(raw.kubeConfig(TOKEN));
      expect(texts.join('\n')).toContain('xxxxxxxx');
      expect(texts.flatMap(piecesOfToken)).toEqual([]);
    },
  );
});
