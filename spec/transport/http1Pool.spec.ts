import { afterEach, describe, expect, it } from '@jest/globals';
import { connectionsFor } from '../../src/transport/targetConnections.js';
import { transportSettings } from '../../src/transport/transportSettings.js';
import type { OutgoingRequest } from '../../src/transport/outgoingRequest.js';
import type { ExchangeResult } from '../../src/transport/body.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { until } from '../support/wait.js';

// The HTTP/1.1 connections to one target (plain http: no HTTP/2 there): keep-alive reuse, one
// connection per running request, a cancelled request's socket closed, close() once idle.
let server: FakeKubeApiServer | undefined;
const idle = transportSettings.keepAliveIdleMs;
afterEach(async () => {
  transportSettings.keepAliveIdleMs = idle;
  await server?.stop();
});

function get(path: string, signal = new AbortController().signal): OutgoingRequest {
  return {
    origin: server!.url,
    method: 'GET',
    path,
    headers: { authorization: `Bearer ${server!.token}` },
    signal,
  };
}

/** Reads an answer's body to its end. */
function drain(result: ExchangeResult): Promise<number> {
  if (result.kind !== 'answer') throw new Error(`no answer: ${result.kind}`);
  return new Promise((resolve, reject) =>
    result.body.start({
      bytes: () => true,
      end: () => resolve(result.head.statusCode),
      fail: reject,
    }),
  );
}

describe('Http1Pool', () => {
  it('reuses an idle connection, opens one per running request, and closes idle ones on close()', async () => {
    transportSettings.keepAliveIdleMs = 60_000;
    server = await FakeKubeApiServer.start();
    const { http1 } = connectionsFor({ origin: server.url, tls: undefined, proxy: undefined });
    expect(await drain(await http1.send(get('/api/v1/pods')))).toBe(200);
    expect(await drain(await http1.send(get('/api/v1/pods')))).toBe(200);
    expect(server.connectionLog.filter((e) => e.event === 'open')).toHaveLength(1);
    // A watch holds its connection: a list meanwhile takes another.
    const watch = await http1.send(get('/api/v1/pods?watch=true'));
    expect(await drain(await http1.send(get('/api/v1/pods')))).toBe(200);
    expect(http1.size).toBe(2);
    expect(server.openConnections).toBe(2);
    http1.close();
    // The idle one closes now, the watch's when the watch is over.
    await until(() => server!.openConnections === 1, 'the idle connection to close');
    if (watch.kind === 'answer') watch.body.release();
    await server.waitForConnections(0);
  });

  it('closes the socket of a request released while it runs', async () => {
    server = await FakeKubeApiServer.start();
    const { http1 } = connectionsFor({ origin: server.url, tls: undefined, proxy: undefined });
    const watch = await http1.send(get('/api/v1/pods?watch=true'));
    expect(watch.kind).toBe('answer');
    expect(server.openWatches).toBe(1);
    if (watch.kind === 'answer') watch.body.release();
    await server.waitForConnections(0);
    expect(server.openWatches).toBe(0);
  });
});
