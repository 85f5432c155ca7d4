import { afterEach, describe, expect, it } from '@jest/globals';
import { connectionsFor } from '../../src/transport/targetConnections.js';
import { transportSettings } from '../../src/transport/transportSettings.js';
import type { OutgoingRequest } from '../../src/transport/outgoingRequest.js';
import type { ExchangeResult } from '../../src/transport/body.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { until } from '../support/wait.js';

// The HTTP/2 sessions to one target: streams share a session up to the server's
// maxConcurrentStreams, more open another; a released stream is reset (the session lives on);
// close() closes each session once its streams are over.
let server: FakeKubeApiServer | undefined;
const idle = transportSettings.keepAliveIdleMs;
afterEach(async () => {
  transportSettings.keepAliveIdleMs = idle;
  await server?.stop();
});

function watchRequest(): OutgoingRequest {
  return {
    origin: server!.url,
    method: 'GET',
    path: '/api/v1/pods?watch=true',
    headers: { authorization: `Bearer ${server!.token}` },
    signal: new AbortController().signal,
  };
}

function release(result: ExchangeResult | undefined): void {
  if (result?.kind !== 'answer') throw new Error(`no answer: ${result?.kind}`);
  result.body.release();
}

describe('Http2Sessions', () => {
  it('shares a session up to maxConcurrentStreams, resets released streams, closes when over', async () => {
    transportSettings.keepAliveIdleMs = 60_000;
    server = await FakeKubeApiServer.start({ tls: true, maxConcurrentStreams: 2 });
    const sessions = connectionsFor({
      origin: server.url,
      tls: { ca: server.caPem },
      proxy: undefined,
    }).http2();
    const watches = [];
    for (let i = 0; i < 3; i++) watches.push(await sessions.send(watchRequest()));
    expect(sessions.protocol).toBe('h2');
    expect(sessions.size).toBe(2);
    expect(server.http2.openStreamsPerSession).toEqual([2, 1]);
    release(watches[0]);
    await until(() => server!.http2.streamsResetByClient === 1, 'a reset stream');
    expect(server.http2.openSessions).toBe(2);
    sessions.close();
    // Each session closes once its streams are over.
    release(watches[2]);
    await until(() => server!.http2.openSessions === 1, 'the second session to close');
    release(watches[1]);
    await until(() => server!.http2.openSessions === 0, 'the first session to close');
  });
});
