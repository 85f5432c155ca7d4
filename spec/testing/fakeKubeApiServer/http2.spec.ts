import { afterEach, describe, expect, it } from '@jest/globals';
import http2 from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { Socket } from 'node:net';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { until } from '../../support/wait.js';
import { get, watch } from './client.js';
import { connect, H2Stream } from './h2client.js';

const { NGHTTP2_CANCEL, NGHTTP2_INTERNAL_ERROR, NGHTTP2_ENHANCE_YOUR_CALM } = http2.constants;
const names = (s: H2Stream): string[] => s.events.map((e) => `${e.type} ${e.object.metadata.name}`);

describe('FakeKubeApiServer over HTTP/2', () => {
  let server: FakeKubeApiServer;
  const sessions: ClientHttp2Session[] = [];
  const open = async (): Promise<ClientHttp2Session> => {
    const session = await connect(server);
    sessions.push(session);
    return session;
  };
  afterEach(async () => {
    for (const s of sessions.splice(0)) s.destroy();
    await server.stop();
  });

  it('turns Nagle off on every socket of the ALPN port, HTTP/1.1 ones too', async () => {
    // node's HTTP/2 server sets TCP_NODELAY only on the sockets that speak h2: HTTP/1.1 ones
    // held small writes (watch events) until the previous segment was acked.
    server = await FakeKubeApiServer.start({ tls: true });
    const port = Number(new URL(server.url).port);
    const noDelay: Socket[] = [];
    const setNoDelay = Socket.prototype.setNoDelay;
    Socket.prototype.setNoDelay = function (this: Socket, enable?: boolean) {
      if (enable !== false && this.localPort === port) noDelay.push(this);
      return setNoDelay.call(this, enable);
    };
    try {
      await get(server, '/api/v1/pods');
      await open();
    } finally {
      Socket.prototype.setNoDelay = setNoDelay;
    }
    expect(server.requests.map((r) => r.httpVersion)).toEqual(['1.1']);
    expect(new Set(noDelay.map((socket) => socket.remotePort)).size).toBe(2);
  });

  it('offers h2 through ALPN and still answers HTTP/1.1 on the same port', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    server.create(pods, pod('a', '0'));
    const session = await open();
    expect(session.alpnProtocol).toBe('h2');
    const list = new H2Stream(session, '/api/v1/pods');
    expect((await list.json()).items.map((p: any) => p.metadata.name)).toEqual(['a']);
    expect(list.status).toBe(200);
    const h1 = await get(server, '/api/v1/pods');
    expect(h1.json.items).toHaveLength(1);
    expect(server.requests.map((r) => r.httpVersion)).toEqual(['2.0', '1.1']);
    expect(Object.keys(server.requests[0].headers).some((k) => k.startsWith(':'))).toBe(false);
    expect(server.requests[0].headers.authorization).toBe('<redacted>');
    expect(server.http2).toMatchObject({ sessions: 1, streams: 1, openSessions: 1 });
  });

  it('http2: false serves HTTP/1.1 only', async () => {
    server = await FakeKubeApiServer.start({ tls: true, http2: false });
    await expect(connect(server)).rejects.toThrow();
    expect((await get(server, '/api/v1/pods')).status).toBe(200);
    expect(server.http2.sessions).toBe(0);
  });

  it('watches share one session, each on its own stream, and follow every change', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    server.create(pods, pod('a', '0'));
    const session = await open();
    const w1 = new H2Stream(session, '/api/v1/pods?watch=true');
    const w2 = new H2Stream(session, '/api/v1/namespaces/default/pods?watch=true');
    await until(() => w1.events.length === 1 && w2.events.length === 1, 'initial events');
    server.create(pods, pod('b', '0'));
    server.delete(pods, 'default', 'a');
    await until(() => w1.events.length === 3 && w2.events.length === 3, 'live events');
    expect(names(w1)).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
    expect(names(w2)).toEqual(names(w1));
    expect(server.openWatches).toBe(2);
    expect(server.openConnections).toBe(1);
    expect(server.http2).toMatchObject({ sessions: 1, openStreams: 2, openStreamsPerSession: [2] });
    const [r1, r2] = server.requests;
    expect(r1.connectionId).toBeGreaterThan(0);
    expect(r2.connectionId).toBe(r1.connectionId);
  });

  it('records a stream the client resets; the session and the other watches live on', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const session = await open();
    const w1 = new H2Stream(session, '/api/v1/pods?watch=true');
    const w2 = new H2Stream(session, '/api/v1/pods?watch=true');
    await Promise.all([w1.responded, w2.responded]);
    w1.stream.close(NGHTTP2_CANCEL);
    await until(() => server.openWatches === 1, 'the reset watch to end');
    expect(server.http2).toMatchObject({
      openSessions: 1,
      openStreams: 1,
      streamsResetByClient: 1,
    });
    server.create(pods, pod('b', '0'));
    await until(() => w2.events.length === 1, 'an event on the other watch');
  });

  it('a client that closes its socket is not counted as resetting streams', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const session = await open();
    const w = new H2Stream(session, '/api/v1/pods?watch=true');
    await w.responded;
    session.destroy();
    await server.waitForConnections(0);
    await until(() => server.http2.openSessions === 0, 'the session to close');
    expect(server.http2).toMatchObject({ openStreams: 0, streamsResetByClient: 0 });
    expect(server.openWatches).toBe(0);
  });

  it('dropAfter and cutLine reset the stream (RST_STREAM INTERNAL_ERROR), not the session', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    for (const n of ['a', 'b', 'c']) server.create(pods, pod(n, '0'));
    const session = await open();
    server.faults.dropAfter(2);
    const dropped = new H2Stream(session, '/api/v1/pods?watch=true');
    await dropped.closed;
    expect(dropped.rstCode).toBe(NGHTTP2_INTERNAL_ERROR);
    expect(dropped.events).toHaveLength(2);
    server.faults.cutLine({ afterEvents: 1 });
    const cut = new H2Stream(session, '/api/v1/pods?watch=true');
    await cut.closed;
    expect(cut.rstCode).toBe(NGHTTP2_INTERNAL_ERROR);
    const [first, half] = cut.raw.split('\n');
    expect(JSON.parse(first).type).toBe('ADDED');
    expect(half.length).toBeGreaterThan(10);
    expect(() => JSON.parse(half)).toThrow();
    expect(session.destroyed).toBe(false);
    expect(server.http2).toMatchObject({ sessions: 1, openSessions: 1, streamsResetByClient: 0 });
  });

  it('keepAlive: false answers over HTTP/2 without connection headers', async () => {
    server = await FakeKubeApiServer.start({ tls: true, keepAlive: false });
    const session = await open();
    const ok = new H2Stream(session, '/api/v1/pods');
    const refused = new H2Stream(session, '/api/v1/pods', { token: 'wrong' });
    expect((await ok.json()).kind).toBe('PodList');
    expect((await refused.json()).reason).toBe('Unauthorized');
    expect([ok.status, refused.status]).toEqual([200, 401]);
    expect(ok.headers.connection).toBeUndefined();
  });

  it('goaway() sends GOAWAY: open watches go on, new requests take a new session', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const session = await open();
    const goaways: number[] = [];
    session.on('goaway', (code) => goaways.push(code));
    const w = new H2Stream(session, '/api/v1/pods?watch=true');
    await w.responded;
    server.goaway();
    await until(() => goaways.length > 0, 'GOAWAY');
    expect(goaways).toEqual([0]);
    server.create(pods, pod('a', '0'));
    await until(() => w.events.length === 1, 'the open watch to go on');
    const next = await open();
    expect((await new H2Stream(next, '/api/v1/pods').json()).items).toHaveLength(1);
    expect(server.http2.sessions).toBe(2);
    w.stream.close(NGHTTP2_CANCEL);
    await until(() => server.http2.openSessions === 1, 'the old session to close');
  });

  it('goaway(code) with an error code ends the session and its streams at once', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const session = await open();
    const goaway = new Promise((resolve) => session.on('goaway', resolve));
    const w = new H2Stream(session, '/api/v1/pods?watch=true');
    await w.responded;
    server.goaway(NGHTTP2_ENHANCE_YOUR_CALM);
    expect(await goaway).toBe(NGHTTP2_ENHANCE_YOUR_CALM);
    await w.closed;
    await until(() => server.http2.openSessions === 0 && server.openWatches === 0, 'the end');
    expect(server.http2.streamsResetByClient).toBe(0);
  });

  it('resetStreams() resets every open stream and keeps the sessions', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const session = await open();
    const ws = [1, 2, 3].map(() => new H2Stream(session, '/api/v1/pods?watch=true'));
    await Promise.all(ws.map((w) => w.responded));
    expect(server.resetStreams(NGHTTP2_CANCEL)).toBe(3);
    await Promise.all(ws.map((w) => w.closed));
    expect(ws.map((w) => w.rstCode)).toEqual([NGHTTP2_CANCEL, NGHTTP2_CANCEL, NGHTTP2_CANCEL]);
    await until(() => server.openWatches === 0, 'watches to end');
    expect(server.http2).toMatchObject({
      openSessions: 1,
      openStreams: 0,
      streamsResetByClient: 0,
    });
    expect((await new H2Stream(session, '/api/v1/pods').json()).kind).toBe('PodList');
  });

  it('maxConcurrentStreams is sent in SETTINGS and bounds the open streams', async () => {
    server = await FakeKubeApiServer.start({ tls: true, maxConcurrentStreams: 2 });
    const session = await open();
    await until(() => session.remoteSettings.maxConcurrentStreams === 2, 'SETTINGS');
    const ws = [1, 2, 3].map(() => new H2Stream(session, '/api/v1/pods?watch=true'));
    await Promise.all([ws[0].responded, ws[1].responded]);
    expect(server.openWatches).toBe(2);
    expect(ws[2].status).toBe(0);
    ws[0].stream.close(NGHTTP2_CANCEL);
    await ws[2].responded;
    expect(server.http2.peakOpenStreams).toBe(2);
    await expect(FakeKubeApiServer.start({ maxConcurrentStreams: 0 })).rejects.toThrow(RangeError);
  });

  it('disconnectAll() cuts every watch on both protocols', async () => {
    server = await FakeKubeApiServer.start({ tls: true });
    const session = await open();
    const h2 = new H2Stream(session, '/api/v1/pods?watch=true');
    const h1 = watch(server, '/api/v1/pods');
    await Promise.all([h2.responded, h1.responded]);
    expect(server.openWatches).toBe(2);
    server.disconnectAll();
    await h2.closed;
    expect(h2.rstCode).toBe(NGHTTP2_INTERNAL_ERROR);
    expect(await h1.ended).toEqual({ complete: false });
    expect(server.openWatches).toBe(0);
    expect(server.http2.openSessions).toBe(1);
  });

  it('serves big lists (flow control), paging, pod logs and client certificates over HTTP/2', async () => {
    server = await FakeKubeApiServer.start({ tls: true, clientCA: true });
    const padding = 'x'.repeat(1000);
    for (let i = 0; i < 300; i++) {
      server.create(pods, pod(`p${i}`, '0', { metadata: { annotations: { padding } } }));
    }
    const session = await open();
    const all = await new H2Stream(session, '/api/v1/pods').json();
    expect(all.items).toHaveLength(300);
    const page = await new H2Stream(session, '/api/v1/pods?limit=100').json();
    expect(page.metadata.remainingItemCount).toBe(200);
    server.appendLog('default', 'p1', 'hello');
    const log = new H2Stream(session, '/api/v1/namespaces/default/pods/p1/log?follow=true');
    await until(() => log.raw === 'hello\n', 'the first log line');
    server.appendLog('default', 'p1', 'again');
    await until(() => log.raw === 'hello\nagain\n', 'the followed line');
    const { cert, key } = server.clientCert!;
    const x509 = await connect(server, { cert, key });
    sessions.push(x509);
    const byCert = new H2Stream(x509, '/api/v1/pods?limit=1', { token: null });
    await byCert.closed;
    expect(byCert.status).toBe(200);
    expect(server.requests.at(-1)).toMatchObject({ clientCertValid: true, httpVersion: '2.0' });
  });
});
