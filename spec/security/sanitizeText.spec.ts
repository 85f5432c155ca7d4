import { WatchError } from '../../src/WatchError.js';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { lastValueFrom, toArray } from 'rxjs';
import {
  escapeJsonControlCharacters,
  replaceControlCharacters,
  replaceControlCharactersKeepingLines,
  serverTextForMessage,
} from '../../src/security/sanitizeText.js';
import { rememberSecret } from '../../src/security/redactSecrets.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import type { WatchEvent } from '../../src/types.js';
import { RawServer, line } from '../support/rawServer.js';

/** Sets the terminal's title to PWNED, rings, erases the line and returns to its start. */
const HOSTILE = '\u001b]0;PWNED\u0007\u001b[2K\r';
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('replaceControlCharacters', () => {
  it('replaces every C0 and C1 control character and DEL, and nothing else', () => {
    const all = Array.from({ length: 0x2ff }, (_, code) => String.fromCharCode(code)).join('');
    const replaced = replaceControlCharacters(all);
    expect(replaced).not.toMatch(ANY_CONTROL);
    expect(replaced).toContain('\\u001b\\u001c');
    expect(replaced).toContain('\\u009b');
    expect(replaced).toContain(' !"#');
    expect(replaced).toContain('ÿĀā');
    expect(replaceControlCharacters(`web-1${HOSTILE}`)).toBe(
      'web-1\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d',
    );
    expect(replaceControlCharacters('plain text, ünïcödé, 日本')).toBe('plain text, ünïcödé, 日本');
  });

  it('keeps newlines when told to, for a stack', () => {
    expect(replaceControlCharactersKeepingLines(`a${HOSTILE}\nb\tc`)).toBe(
      'a\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d\nb\\u0009c',
    );
  });

  it('JSON text: C1 controls escaped as JSON escapes, the value unchanged', () => {
    const value = { name: `evil\u009b2J${HOSTILE}\u007f` };
    const json = escapeJsonControlCharacters(JSON.stringify(value));
    expect(json).not.toMatch(ANY_CONTROL);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('a server text for a message: redacted with its own spacing, then replaced, then cut', () => {
    rememberSecret('known-secret-value');
    const text = serverTextForMessage(`Bearer\tunknown-token known-secret-value${HOSTILE}`);
    expect(text).toBe('Bearer <redacted> <redacted>\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d');
    // Replacing makes a text longer (6 characters for 1): it is cut after that.
    expect(serverTextForMessage('\u0007'.repeat(5000)).length).toBe(4097);
  });
});

describe('WatchError messages carry no control character of the server', () => {
  let raw: RawServer | undefined;
  afterEach(async () => {
    await raw?.stop();
    raw = undefined;
  });

  it('a Status: message and reason replaced; the Status itself kept as data', () => {
    const error = WatchError.fromStatus(
      { kind: 'Status', code: 403, reason: `Forbidden${HOSTILE}`, message: `denied${HOSTILE}` },
      '/api/v1/pods',
    );
    expect(error.message).not.toMatch(ANY_CONTROL);
    expect(error.message).toContain('denied\\u001b]0;PWNED');
    expect(error.reason).not.toMatch(ANY_CONTROL);
    expect(error.errorType).toBe('FORBIDDEN');
    expect((error.status as { message: string }).message).toBe(`denied${HOSTILE}`);
  });

  it('a network failure whose message quotes the server', () => {
    expect(WatchError.network('/p', new Error(`bad header ${HOSTILE}`)).message).not.toMatch(
      ANY_CONTROL,
    );
  });

  it.each([
    ['a 403 answer', 403, (res: ServerResponse) => res.end(status(403))],
    [
      'an in-stream ERROR event',
      200,
      (res: ServerResponse) => res.end(line('ERROR', JSON.parse(status(500)) as object)),
    ],
  ])('over HTTP: %s with the sequence in its Status message', async (_what, code, answer) => {
    raw = await RawServer.start((_req, res) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      answer(res);
    });
    const events: WatchEvent[] = await lastValueFrom(
      fromWatch(raw.kubeConfig(), pods).pipe(toArray()),
    );
    const errors = events.flatMap((e) => (e.type === 'ERROR' ? [e.error] : []));
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('PWNED');
    expect(errors[0].message).not.toMatch(ANY_CONTROL);
  });
});

function status(code: number): string {
  return JSON.stringify({ kind: 'Status', code, reason: 'Forbidden', message: `no${HOSTILE}` });
}
