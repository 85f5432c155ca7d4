import { afterEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { Socket } from 'node:net';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pods } from '../../src/objects/resources.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { ConnectProxy } from './connectProxy.js';
import { RawServer, line, rawPod } from './rawServer.js';
import { until } from './wait.js';

// The spec proxy itself, driven by node:http as a client: tunnels, forwarding, credentials, and
// holding a watch's answer until its first event.
let proxy: ConnectProxy | undefined;
let raw: RawServer | undefined;
let fake: FakeKubeApiServer | undefined;
afterEach(async () => {
  await proxy?.stop();
  await raw?.stop();
  await fake?.stop();
  proxy = raw = fake = undefined;
});

const portOf = (url: string) => Number(new URL(url).port);

/** Opens a CONNECT tunnel to `target` (`host:port`); resolves with the proxy's status and the socket. */
function connect(
  through: ConnectProxy,
  target: string,
  headers: http.OutgoingHttpHeaders = {},
): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: portOf(through.url()),
      method: 'CONNECT',
      path: target,
      headers,
    });
    req.once('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.once('error', reject);
    req.end();
  });
}

interface Answer {
  status: number;
  /** When the response head arrived (performance.now()). */
  headAt: number;
  /** The body's chunks as they came, and when. */
  chunks: Array<{ at: number; text: string }>;
  response: http.IncomingMessage;
}

/** Sends a GET (over `socket` when given, else as `options` say) and resolves at its head. */
function get(options: http.RequestOptions, socket?: Socket): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      ...options,
      ...(socket && { createConnection: () => socket }),
    });
    req.once('response', (response) => {
      const answer: Answer = {
        status: response.statusCode ?? 0,
        headAt: performance.now(),
        chunks: [],
        response,
      };
      response.setEncoding('utf8');
      response.on('data', (text: string) => answer.chunks.push({ at: performance.now(), text }));
      resolve(answer);
    });
    req.once('error', reject);
    req.end();
  });
}

const bodyOf = (answer: Answer) =>
  new Promise<string>((resolve) => {
    if (answer.response.complete) resolve(answer.chunks.map((c) => c.text).join(''));
    answer.response.once('end', () => resolve(answer.chunks.map((c) => c.text).join('')));
  });

/** A raw server whose watches send their head at once and their first event after `delayMs`. */
async function slowFirstEventServer(
  delayMs: number,
): Promise<{ server: RawServer; sentAt: number[] }> {
  const sentAt: number[] = [];
  const server = await RawServer.start((req, res) => {
    if (!/watch=(true|1)/.test(req.url ?? '')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'PodList', items: [], metadata: { resourceVersion: '5' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    setTimeout(() => {
      sentAt.push(performance.now());
      res.write(line('ADDED', rawPod('web-1', '6')));
    }, delayMs);
  });
  return { server, sentAt };
}

describe('ConnectProxy', () => {
  it('tunnels TCP to a loopback server with CONNECT, and counts tunnels and requests', async () => {
    fake = await FakeKubeApiServer.start({ token: null });
    fake.create(pods, pod('web-1', ''));
    proxy = await ConnectProxy.start();
    const { status, socket } = await connect(proxy, `127.0.0.1:${fake.port}`);
    expect(status).toBe(200);
    const answer = await get(
      { path: '/api/v1/namespaces/default/pods', host: '127.0.0.1' },
      socket,
    );
    const list = JSON.parse(await bodyOf(answer)) as {
      items: Array<{ metadata: { name: string } }>;
    };
    expect(list.items.map((p) => p.metadata.name)).toEqual(['web-1']);
    expect(proxy).toMatchObject({ tunnels: 1, requests: 1, forwarded: 0, refused: 0 });
    expect(proxy.connectTargets).toEqual([`127.0.0.1:${fake.port}`]);
    socket.destroy();
    await until(() => proxy!.openSockets === 0, 'the tunnel to close on both sides');
  });

  it('requires the credentials it was given (407 without them), and reaches loopback only (403)', async () => {
    raw = await RawServer.start((_req, res) => res.end('ok'));
    proxy = await ConnectProxy.start({ credentials: 'alice:s3cret' });
    const target = `127.0.0.1:${portOf(raw.url)}`;
    expect((await connect(proxy, target)).status).toBe(407);
    const wrong = `Basic ${Buffer.from('alice:nope').toString('base64')}`;
    expect((await connect(proxy, target, { 'proxy-authorization': wrong })).status).toBe(407);
    const right = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    expect((await connect(proxy, '10.1.2.3:443', { 'proxy-authorization': right })).status).toBe(
      403,
    );
    const { status, socket } = await connect(proxy, target, { 'proxy-authorization': right });
    expect(status).toBe(200);
    expect(await bodyOf(await get({ path: '/', host: '127.0.0.1' }, socket))).toBe('ok');
    expect(proxy).toMatchObject({ tunnels: 1, refused: 3 });
    expect(proxy.url(true)).toMatch(/^http:\/\/alice:s3cret@127\.0\.0\.1:\d+$/);
    socket.destroy();
  });

  it('forwards plain HTTP requests with an absolute URI, without the proxy headers', async () => {
    raw = await RawServer.start((req, res) => res.end(`saw ${req.url}`));
    proxy = await ConnectProxy.start({ credentials: 'a:b' });
    const answer = await get({
      host: '127.0.0.1',
      port: portOf(proxy.url()),
      path: `${raw.url}/api/v1/pods?limit=5`,
      headers: { 'proxy-authorization': `Basic ${Buffer.from('a:b').toString('base64')}` },
    });
    expect(await bodyOf(answer)).toBe('saw /api/v1/pods?limit=5');
    expect(raw.requests[0].headers['proxy-authorization']).toBeUndefined();
    expect(proxy).toMatchObject({ tunnels: 0, requests: 1, forwarded: 1 });
  });

  it('without holding, a watch head passes at once, before its first event', async () => {
    const { server, sentAt } = await slowFirstEventServer(300);
    raw = server;
    proxy = await ConnectProxy.start();
    const { socket } = await connect(proxy, `127.0.0.1:${portOf(raw.url)}`);
    const answer = await get({ path: '/api/v1/pods?watch=true', host: '127.0.0.1' }, socket);
    await until(() => answer.chunks.length > 0, 'the first event');
    expect(answer.headAt).toBeLessThan(sentAt[0]);
    expect(proxy.held).toEqual([]);
    socket.destroy();
  });

  it('holding: a watch answer (head included) comes with its first event, in a tunnel', async () => {
    const { server, sentAt } = await slowFirstEventServer(300);
    raw = server;
    proxy = await ConnectProxy.start({ holdWatchUntilFirstEvent: true });
    const { socket } = await connect(proxy, `127.0.0.1:${portOf(raw.url)}`);
    // Raw HTTP/1.1 on the tunnel: a list first (not held), then a watch on the same connection.
    const received: Array<{ at: number; text: string }> = [];
    socket.on('data', (bytes: Buffer) =>
      received.push({ at: performance.now(), text: bytes.toString() }),
    );
    const text = () => received.map((r) => r.text).join('');
    socket.write('GET /api/v1/pods HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => text().includes('"PodList"'), 'the list');
    const before = received.length;
    socket.write('GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => received.length > before, 'the watch answer');
    const first = received[before];
    expect(first.at).toBeGreaterThanOrEqual(sentAt[0]);
    expect(first.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(first.text).toContain('"web-1"');
    expect(proxy.held).toHaveLength(1);
    expect(proxy.held[0].heldMs).toBeGreaterThanOrEqual(250);
    expect(proxy.requests).toBe(2);
    socket.destroy();
  });

  it('holding: a watch answer forwarded as plain HTTP comes with its first event', async () => {
    const { server, sentAt } = await slowFirstEventServer(300);
    raw = server;
    proxy = await ConnectProxy.start({ holdWatchUntilFirstEvent: true });
    const answer = await get({
      host: '127.0.0.1',
      port: portOf(proxy.url()),
      path: `${raw.url}/api/v1/pods?watch=1`,
    });
    expect(answer.headAt).toBeGreaterThanOrEqual(sentAt[0]);
    await until(() => answer.chunks.length > 0, 'the first event');
    expect(answer.chunks[0].text).toContain('"web-1"');
    expect(proxy.held).toHaveLength(1);
    answer.response.destroy();
  });

  it('holding: an answer complete without an event line (a 410 Status) is released when complete', async () => {
    raw = await RawServer.start((_req, res) => {
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired' }));
    });
    proxy = await ConnectProxy.start({ holdWatchUntilFirstEvent: true });
    const { socket } = await connect(proxy, `127.0.0.1:${portOf(raw.url)}`);
    const answer = await get({ path: '/api/v1/pods?watch=true', host: '127.0.0.1' }, socket);
    expect(answer.status).toBe(410);
    expect(JSON.parse(await bodyOf(answer))).toMatchObject({ code: 410 });
    expect(proxy.held).toHaveLength(1);
    socket.destroy();
  });
});
