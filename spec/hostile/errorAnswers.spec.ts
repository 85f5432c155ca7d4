import { describe, expect, it } from '@jest/globals';
import type http from 'node:http';
import type { RawServer } from '../support/rawServer.js';
import { line, rawPod } from '../support/rawServer.js';
import { expectClean, lastError, useRawServer, runHostile } from './support.js';

// Hostile and broken answers to the watch request itself: error pages, Status bodies of every
// wrong shape, informational and empty answers. Each case runs through watchResource and fromWatch.
const html = (status: number, title: string, headers: http.OutgoingHttpHeaders = {}) =>
  ((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(
      `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1>` +
        `<p>nginx</p><script>alert("x")</script></body></html>\n`,
    );
  }) as RawServer['handler'];

const status = (httpStatus: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) =>
  ((_req, res) => {
    res.writeHead(httpStatus, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }) as RawServer['handler'];

describe('hostile error answers to a watch', () => {
  const raw = useRawServer();

  const run = async (handler: RawServer['handler'], expected: string[]) => {
    raw().handler = handler;
    const result = await runHostile(raw().kubeConfig());
    expectClean(result, expected);
    return { generator: lastError(result.generator), observable: lastError(result.observable) };
  };

  it.each([
    [500, 'SYSTEM_ERROR'],
    [503, 'SYSTEM_ERROR'],
    [401, 'UNAUTHORIZED_ERROR'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [400, 'BAD_REQUEST'],
  ])(
    'an HTML %i page gives one ERROR %s with that status and no HTML in the message',
    async (code, type) => {
      const { generator, observable } = await run(html(code, `${code} Oops`), [`ERROR:${type}`]);
      for (const error of [generator, observable]) {
        expect(error.statusCode).toBe(code);
        expect(error.message).not.toMatch(/<script|<html/i);
        expect(error.status).toBeUndefined();
      }
    },
  );

  it('an HTML 503 with Retry-After in seconds carries it', async () => {
    const { generator, observable } = await run(html(503, 'Maintenance', { 'retry-after': '7' }), [
      'ERROR:SYSTEM_ERROR',
    ]);
    expect(generator.retryAfterSeconds).toBe(7);
    expect(observable.retryAfterSeconds).toBe(7);
  });

  it('a 429 with Retry-After as an HTTP date becomes whole seconds from now', async () => {
    const when = new Date(Date.now() + 20_000).toUTCString();
    const { generator } = await run(html(429, 'Slow down', { 'retry-after': when }), [
      'ERROR:TOO_MANY_REQUESTS',
    ]);
    expect(generator.retryAfterSeconds).toBeGreaterThanOrEqual(18);
    expect(generator.retryAfterSeconds).toBeLessThanOrEqual(21);
  });

  it('a Retry-After that is garbage or negative asks for no wait', async () => {
    for (const value of ['soon', '-5', '1e', '']) {
      const { generator, observable } = await run(
        status(503, { kind: 'Status', code: 503 }, { 'retry-after': value }),
        ['ERROR:SYSTEM_ERROR'],
      );
      // '-5' parses as a date (year -5), hence 0; the others are dropped.
      expect([undefined, 0]).toContain(generator.retryAfterSeconds);
      expect(observable.retryAfterSeconds).toEqual(generator.retryAfterSeconds);
    }
  });

  it('a 418 plain-text answer is UNKNOWN_ERROR with its status', async () => {
    const { generator } = await run(
      (_req, res) => {
        res.writeHead(418, { 'content-type': 'text/plain' });
        res.end("I'm a teapot");
      },
      ['ERROR:UNKNOWN_ERROR'],
    );
    expect(generator.statusCode).toBe(418);
  });

  it.each([
    ['code 0', { kind: 'Status', code: 0, message: 'zero' }, 500],
    ['code missing', { kind: 'Status', reason: 'ServiceUnavailable' }, 503],
    ['code a string', { kind: 'Status', code: '410', reason: 'Gone' }, 500],
    ['code negative', { kind: 'Status', code: -1 }, 400],
    ['code 999', { kind: 'Status', code: 999 }, 502],
    ['code out of range (1e400 parses to Infinity)', { kind: 'Status', code: 'INF' }, 500],
  ])('a Status body with %s falls back to the HTTP status', async (_what, body, httpStatus) => {
    const text = JSON.stringify(body).replace('"INF"', '1e400');
    const { generator, observable } = await run(status(httpStatus, text), [
      `ERROR:${httpStatus === 400 ? 'BAD_REQUEST' : 'SYSTEM_ERROR'}`,
    ]);
    expect(generator.statusCode).toBe(httpStatus);
    expect(observable.statusCode).toBe(httpStatus);
  });

  it('a Status as an array is no Status: the HTTP status stands and nothing is kept as status', async () => {
    const { generator } = await run(status(500, [{ kind: 'Status', code: 410 }]), [
      'ERROR:SYSTEM_ERROR',
    ]);
    expect(generator.statusCode).toBe(500);
    expect(generator.status).toBeUndefined();
  });

  it('a Status with a 1 MB message on a 500 is read only up to a bound', async () => {
    const { generator } = await run(
      status(500, { kind: 'Status', code: 500, message: 'm'.repeat(1024 * 1024) }),
      ['ERROR:SYSTEM_ERROR'],
    );
    // The body was cut at 64 KiB, so it did not parse: the message is the HTTP status text.
    expect(generator.message.length).toBeLessThan(64 * 1024);
  });

  it('an error body of invalid UTF-8 and NUL bytes is survived', async () => {
    const { generator } = await run(
      (_req, res) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x7d]));
      },
      ['ERROR:SYSTEM_ERROR'],
    );
    expect(generator.statusCode).toBe(502);
  });

  it('a 304 Not Modified is not a watch: UNKNOWN_ERROR 304', async () => {
    const { generator } = await run(
      (_req, res) => {
        res.writeHead(304);
        res.end();
      },
      ['ERROR:UNKNOWN_ERROR'],
    );
    expect(generator.statusCode).toBe(304);
  });

  it('a 204 No Content ends the watch quietly', async () => {
    raw().handler = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    expectClean(await runHostile(raw().kubeConfig()), []);
  });

  it('103 Early Hints before the real answer are skipped over', async () => {
    raw().handler = (_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(line('ADDED', rawPod('a', '1')));
    };
    expectClean(await runHostile(raw().kubeConfig()), ['ADDED']);
  });

  it('a 100 Continue nobody asked for (no Expect header was sent) is one clean SYSTEM_ERROR', async () => {
    // undici refuses an unsolicited 100 as a bad response; kube-rx never sends Expect.
    raw().handler = (_req, res) => {
      res.writeContinue();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(line('ADDED', rawPod('a', '1')));
    };
    expectClean(await runHostile(raw().kubeConfig()), ['ERROR:SYSTEM_ERROR']);
  });

  it('Content-Type text/html with valid watch lines still delivers the events', async () => {
    raw().handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(line('ADDED', rawPod('a', '1')) + line('MODIFIED', rawPod('a', '2')));
    };
    expectClean(await runHostile(raw().kubeConfig()), ['ADDED', 'MODIFIED']);
  });

  it('an answer of 200 with Content-Length 0 ends the watch with no event', async () => {
    raw().handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' });
      res.end();
    };
    expectClean(await runHostile(raw().kubeConfig()), []);
  });
});
