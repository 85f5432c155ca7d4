import { describe, expect, it } from '@jest/globals';
import { firstValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { line, rawPod } from '../support/rawServer.js';
import { MB, expectClean, lastError, pods, pump, useRawServer, runHostile } from './support.js';

// Floods: lines far too long, bodies that never end, blank and invalid lines by the million.
// Memory must stay bounded (nothing is buffered whole) and the process responsive.
describe('hostile floods', () => {
  let sentBytes = 0;
  const raw = useRawServer(3000);

  /** A `status` answer: `first`, then `block` over and over up to `limitBytes` (or until the client goes), then `last`. */
  const flood = (block: Buffer, limitBytes: number, first = '', last = '', status = 200) => {
    sentBytes = 0;
    raw().handler = (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      if (first) res.write(first);
      const write = res.write.bind(res);
      res.write = ((chunk: Buffer) => {
        sentBytes += chunk.length;
        return write(chunk);
      }) as typeof res.write;
      pump(res, block, { limitBytes, onDone: () => res.end(last) });
    };
  };

  it('a 100 MB line is refused at maxLineBytes (16 MiB) with PARSE_ERROR, never buffered whole', async () => {
    flood(Buffer.alloc(256 * 1024, 'x'), 100 * MB, line('ADDED', rawPod('before', '1')), '\n');
    const result = await runHostile(raw().kubeConfig());
    // Up to 16 MiB of the line is held (maxLineBytes) in 1 MiB segments, about 18 MB measured:
    // far below the 100 MB (and the copy joining them) that buffering the line would take.
    expectClean(result, ['ADDED', 'ERROR:PARSE_ERROR'], { arrayBuffers: 40 * MB, rss: 160 * MB });
    expect(lastError(result.observable).message).toMatch(/maxLineBytes/);
    // The client stopped reading long before the 100 MB were sent.
    expect(sentBytes).toBeLessThan(60 * MB);
  });

  it('a body that never ends and has no newline ends at maxLineBytes with PARSE_ERROR', async () => {
    flood(Buffer.alloc(64 * 1024, '{'), Infinity);
    const result = await runHostile(raw().kubeConfig(), { maxLineBytes: 2 * MB });
    expectClean(result, ['ERROR:PARSE_ERROR'], { arrayBuffers: 24 * MB });
  });

  it('an error answer whose body never ends is read only up to a bound, by every source', async () => {
    flood(Buffer.alloc(64 * 1024, 'x'), Infinity, '', '', 500);
    const result = await runHostile(raw().kubeConfig());
    expectClean(result, ['ERROR:SYSTEM_ERROR']);
    expect(lastError(result.generator).statusCode).toBe(500);
    expect(lastError(result.observable).statusCode).toBe(500);
    const cluster = raw().kubeConfig();
    await expect(firstValueFrom(fromList(cluster, pods))).rejects.toMatchObject({
      errorType: 'SYSTEM_ERROR',
      statusCode: 500,
    });
    await expect(
      firstValueFrom(fromPodLogs(cluster, { namespace: 'default', name: 'web-1' })),
    ).rejects.toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 500 });
    // Four requests, each read for 64 KiB of body plus what the sockets buffer.
    expect(sentBytes).toBeLessThan(32 * MB);
  });

  it('a line just under maxLineBytes is delivered; one byte more is refused', async () => {
    const event = line('ADDED', rawPod('a', '1')).trimEnd();
    const limit = Buffer.byteLength(event);
    raw().handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(event + '\r\n' + event + ' \n');
    };
    const result = await runHostile(raw().kubeConfig(), { maxLineBytes: limit });
    expectClean(result, ['ADDED', 'ERROR:PARSE_ERROR']);
  });

  // Dead buffers count in arrayBuffers until a GC runs: the bounds allow for that, and are far
  // below what keeping the lines (millions of strings) would cost.
  it('8 million blank lines cost no memory, no warning, no event', async () => {
    flood(Buffer.alloc(256 * 1024, '\n'), 8 * MB, '', line('ADDED', rawPod('after', '1')));
    const result = await runHostile(raw().kubeConfig());
    expectClean(result, ['ADDED'], { arrayBuffers: 32 * MB, rss: 100 * MB });
    expect(result.warnings).toEqual([]);
  });

  it('16 MB of CRLF-only lines are blank lines too', async () => {
    flood(Buffer.from('\r\n'.repeat(128 * 1024)), 16 * MB, line('ADDED', rawPod('a', '1')));
    const result = await runHostile(raw().kubeConfig());
    expectClean(result, ['ADDED'], { arrayBuffers: 32 * MB, rss: 100 * MB });
    expect(result.warnings).toEqual([]);
  });

  it('a flood of invalid lines is skipped with one short warning each that never echoes the line', async () => {
    const garbage = Buffer.from('<<garbage-from-the-server>>\n'.repeat(4096));
    flood(garbage, 20_000 * 28, '', line('ADDED', rawPod('survivor', '1')));
    const result = await runHostile(raw().kubeConfig());
    expectClean(result, ['ADDED'], { arrayBuffers: 24 * MB });
    expect(result.warnings.length).toBeGreaterThanOrEqual(2 * 20_000);
    expect(result.warnings.every((w) => w.length < 200 && !w.includes('garbage'))).toBe(true);
  });

  it('a strict watch ends at the first invalid line of a flood, without reading the rest', async () => {
    flood(Buffer.from('nope\n'.repeat(64 * 1024)), Infinity);
    const result = await runHostile(raw().kubeConfig(), { strict: true });
    expectClean(result, ['ERROR:PARSE_ERROR']);
  });

  it('a trickle (one byte every 2 ms) delivers whole events and can be stopped at any time', async () => {
    const body = Buffer.from(
      line('ADDED', rawPod('slow', '1')) + line('MODIFIED', rawPod('slow', '2')),
    );
    let sent = 0;
    raw().handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write(body.subarray(sent % body.length, (sent % body.length) + 1));
        sent++;
      }, 2);
      res.on('close', () => clearInterval(timer));
    };
    const result = await runHostile(raw().kubeConfig(), {
      // Stopped mid-line, once a whole event went out: a busy machine slows the 2 ms timer, so
      // the stop waits for the bytes rather than for a time.
      during: (stop) => {
        sent = 0; // the previous path's connection counted too
        const poll = setInterval(() => {
          if (sent < body.length - 10) return;
          clearInterval(poll);
          stop();
        }, 5);
      },
    });
    expect(result.timedOut).toEqual([]);
    for (const events of [result.generator, result.observable]) {
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.every((e) => e.type === 'ADDED' || e.type === 'MODIFIED')).toBe(true);
    }
    expect(result.maxLagMs).toBeLessThan(750);
  });
});
