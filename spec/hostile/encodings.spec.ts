import { describe, expect, it } from '@jest/globals';
import { deflateSync, gzipSync } from 'node:zlib';
import { firstValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { WatchError } from '../../src/WatchError.js';
import { line, rawPod } from '../support/rawServer.js';
import { MB, expectClean, pods, useRawServer, runHostile } from './support.js';

// Content encodings that lie (gzip claimed and not sent, deflate garbage, gzip never asked for),
// on watches (sent without Accept-Encoding, read as is) and on lists (which ask for gzip), and
// list answers that are not lists.
describe('hostile encodings and list answers', () => {
  const raw = useRawServer();

  const answer = (body: Buffer | string, headers: Record<string, string> = {}) => {
    raw().handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
  };

  /** The error a list fails with (it must fail with a WatchError). */
  const listError = async (): Promise<WatchError> => {
    const error = await firstValueFrom(fromList(raw().kubeConfig(), pods)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WatchError);
    return error as WatchError;
  };

  it('a watch never asks for compression', async () => {
    answer(line('ADDED', rawPod('a', '1')));
    await runHostile(raw().kubeConfig());
    for (const request of raw().requests.slice(-2)) {
      expect(request.headers['accept-encoding'] ?? 'identity').not.toMatch(/gzip|deflate|br/);
    }
  });

  it('a watch answer claiming gzip but plain is read as sent', async () => {
    answer(line('ADDED', rawPod('a', '1')), { 'content-encoding': 'gzip' });
    expectClean(await runHostile(raw().kubeConfig()), ['ADDED']);
  });

  it('a watch answer of deflate garbage is skipped line by line; nothing crashes', async () => {
    answer(Buffer.from([0x78, 0x9c, 0xff, 0x00, 0x13, 0x37, 0x0a, 0xde, 0xad, 0xbe, 0xef]), {
      'content-encoding': 'deflate',
    });
    expectClean(await runHostile(raw().kubeConfig()), []);
  });

  it('a watch answer gzipped though never asked for is binary noise: skipped, no crash', async () => {
    answer(gzipSync(line('ADDED', rawPod('a', '1')).repeat(50)), { 'content-encoding': 'gzip' });
    expectClean(await runHostile(raw().kubeConfig()), []);
  });

  it('a list asks for gzip and reads a real gzip answer', async () => {
    answer(
      gzipSync(JSON.stringify({ metadata: { resourceVersion: '9' }, items: [rawPod('a', '1')] })),
      {
        'content-encoding': 'gzip',
      },
    );
    const list = await firstValueFrom(fromList(raw().kubeConfig(), pods));
    expect(list).toMatchObject({ resourceVersion: '9', items: [{ metadata: { name: 'a' } }] });
    expect(raw().requests[raw().requests.length - 1].headers['accept-encoding']).toMatch(/gzip/);
  });

  it('a list answer claiming gzip but plain fails with a clean WatchError', async () => {
    answer(JSON.stringify({ metadata: { resourceVersion: '9' }, items: [] }), {
      'content-encoding': 'gzip',
    });
    expect(await listError()).toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 0 });
  });

  it('a list answer of deflate garbage fails with a clean WatchError', async () => {
    answer(Buffer.from([0x78, 0x9c, 0xff, 0x00, 0x13, 0x37]), { 'content-encoding': 'deflate' });
    expect(await listError()).toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 0 });
  });

  it('a list answer that is valid deflate of garbage is PARSE_ERROR', async () => {
    answer(deflateSync('<html>not a list</html>'), { 'content-encoding': 'deflate' });
    expect(await listError()).toMatchObject({ errorType: 'PARSE_ERROR' });
  });

  it('a 200 list answer that is HTML is PARSE_ERROR, without the HTML in the message', async () => {
    answer('<html><body>Welcome to nginx!</body></html>', { 'content-type': 'text/html' });
    const error = await listError();
    expect(error).toMatchObject({ errorType: 'PARSE_ERROR', resourcePath: '/api/v1/pods' });
    expect(error.message).not.toMatch(/nginx/);
  });

  it.each([
    ['truncated JSON', '{"metadata":{"resourceVersion":"9"},"items":[{"metad'],
    ['items not an array', '{"metadata":{"resourceVersion":"9"},"items":{"a":1}}'],
    ['null', 'null'],
  ])('a list answer that is %s is PARSE_ERROR', async (_what, body) => {
    answer(body);
    expect(await listError()).toMatchObject({ errorType: 'PARSE_ERROR', statusCode: 0 });
  });

  it('a 32 MB gzip bomb on a list is read as data (bounded), not a crash', async () => {
    // 32 MB of spaces inside a valid list compress to ~32 KB.
    const bomb = gzipSync(`{"items":[],"metadata":{"resourceVersion":"1"}${' '.repeat(32 * MB)}}`);
    expect(bomb.length).toBeLessThan(64 * 1024);
    answer(bomb, { 'content-encoding': 'gzip' });
    const before = process.memoryUsage().rss;
    const list = await firstValueFrom(fromList(raw().kubeConfig(), pods));
    expect(list).toEqual({ items: [], resourceVersion: '1' });
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * MB);
  });
});
