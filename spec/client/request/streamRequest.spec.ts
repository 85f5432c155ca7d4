import { afterEach, describe, expect, it } from '@jest/globals';
import { WatchError } from '../../../src/WatchError.js';
import type { BodySink } from '../../../src/transport/body.js';
import { streamRequest } from '../../../src/client/request/streamRequest.js';
import { RawServer } from '../../support/rawServer.js';
import { sleep, until } from '../../support/wait.js';

// The one streaming request core (watches, watches of Tables, pod logs) on loopback HTTP/1.1:
// what it sends, what the reader hears and when it hears nothing more.
let server: RawServer | undefined;
afterEach(() => server?.stop());

/** A reader that records what it is told; `stopAfter` bytes calls return false from then on. */
function recorder(stopAfter = Infinity) {
  const told: string[] = [];
  let calls = 0;
  const reader: BodySink<WatchError> = {
    bytes: (buffer, start, end) => {
      told.push(`bytes ${new TextDecoder().decode(buffer.subarray(start, end))}`);
      return ++calls < stopAfter;
    },
    end: () => told.push('end'),
    fail: (error) => told.push(`failed ${error.errorType} ${error.statusCode} ${error.message}`),
  };
  return { told, reader };
}

const request = (query = new URLSearchParams()) => ({
  path: '/api/v1/pods',
  query,
  accept: 'text/plain, */*',
  broken: 'the stream broke',
});

describe('streamRequest', () => {
  it('sends the Accept header and query, feeds the body to the reader, then its end', async () => {
    server = await RawServer.start((_req, res) => {
      res.writeHead(200);
      res.write('one');
      setTimeout(() => res.end('two'), 20);
    });
    const { told, reader } = recorder();
    streamRequest(
      server.kubeConfig(),
      request(new URLSearchParams({ a: 'b c' })),
      new AbortController().signal,
      reader,
    );
    await until(() => told.includes('end'), 'the end');
    expect(told.join('').replace(/bytes /g, '')).toBe('onetwoend');
    expect(server.requests[0].headers.accept).toBe('text/plain, */*');
    expect(server.requests[0].rawQuery).toBe('a=b+c');
  });

  it('maps a non-2xx answer to its WatchError, told once, with no bytes', async () => {
    server = await RawServer.start((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }));
    });
    const { told, reader } = recorder();
    streamRequest(server.kubeConfig(), request(), new AbortController().signal, reader);
    await until(() => told.length > 0, 'the failure');
    await sleep(50);
    expect(told).toEqual(['failed FORBIDDEN 403 403 Forbidden: no (/api/v1/pods)']);
  });

  it('tells a WatchError given for the request as a failure, asynchronously, and sends nothing', async () => {
    server = await RawServer.start();
    const { told, reader } = recorder();
    streamRequest(
      server.kubeConfig(),
      WatchError.badRequest('/p', 'bad'),
      new AbortController().signal,
      reader,
    );
    expect(told).toEqual([]);
    await until(() => told.length > 0, 'the failure');
    expect(told).toEqual(['failed BAD_REQUEST 400 bad (/p)']);
    expect(server.requests).toHaveLength(0);
  });

  it("tells a body that breaks mid-way as SYSTEM_ERROR 0 with the request's words for it", async () => {
    server = await RawServer.start((_req, res) => {
      res.writeHead(200);
      res.write('half');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { told, reader } = recorder();
    streamRequest(server.kubeConfig(), request(), new AbortController().signal, reader);
    await until(() => told.some((t) => t.startsWith('failed')), 'the failure');
    expect(told[0]).toBe('bytes half');
    expect(told[1]).toMatch(/^failed SYSTEM_ERROR 0 the stream broke: /);
  });

  it('after close(), or once bytes returned false, tells nothing more and frees the socket', async () => {
    server = await RawServer.start((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 10);
      res.on('close', () => clearInterval(timer));
    });
    const closed = recorder();
    const control = streamRequest(
      server.kubeConfig(),
      request(),
      new AbortController().signal,
      closed.reader,
    );
    await until(() => closed.told.length > 0, 'some bytes');
    control.close();
    const count = closed.told.length;
    await server.waitForNoSockets(2000);
    expect(closed.told).toHaveLength(count);

    const stopped = recorder(2);
    streamRequest(server.kubeConfig(), request(), new AbortController().signal, stopped.reader);
    await until(() => stopped.told.length === 2, 'two chunks');
    await server.waitForNoSockets(2000);
    await sleep(50);
    expect(stopped.told).toHaveLength(2);
    expect(stopped.told.every((t) => /^bytes x+$/.test(t))).toBe(true);
  });

  it('tells nothing more after a close() or an abort from within the sink, and frees the socket', async () => {
    server = await RawServer.start((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 10);
      res.on('close', () => clearInterval(timer));
    });
    for (const how of ['close', 'abort'] as const) {
      const controller = new AbortController();
      const told: string[] = [];
      const control = streamRequest(server.kubeConfig(), request(), controller.signal, {
        bytes: () => {
          told.push('bytes');
          if (how === 'close') control.close();
          else controller.abort();
          return true;
        },
        end: () => told.push('end'),
        fail: () => told.push('fail'),
      });
      await until(() => told.length > 0, 'the first bytes');
      await server.waitForNoSockets(2000);
      await sleep(50);
      expect(told).toEqual(['bytes']);
    }
  });

  it('tells nothing once its signal aborted, and frees the socket', async () => {
    server = await RawServer.start((_req, res) => {
      res.writeHead(200);
      res.write('x');
    });
    const controller = new AbortController();
    const { told, reader } = recorder();
    streamRequest(server.kubeConfig(), request(), controller.signal, reader);
    await until(() => told.length > 0, 'the first bytes');
    controller.abort();
    await server.waitForNoSockets(2000);
    await sleep(50);
    expect(told).toEqual(['bytes x']);
  });
});
