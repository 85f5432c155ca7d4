import { afterEach, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import type net from 'node:net';
import { promisify } from 'node:util';
import { pods } from '../../src/objects/resources.js';
import { transportSettings } from '../../src/transport/transportSettings.js';
import type { WatchEvent } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { TcpServer, afterRequest, types } from '../hostile/support.js';
import { RawServer, collect, line, rawPod } from '../support/rawServer.js';

const run = promisify(execFile);

describe('what bounds a request, and what does not', () => {
  let tcp: TcpServer | undefined;
  const saved = { ...transportSettings };
  afterEach(async () => {
    Object.assign(transportSettings, saved);
    await tcp?.stop();
    tcp = undefined;
  });

  it('headersTimeout bounds the wait for the response head: SYSTEM_ERROR', async () => {
    transportSettings.headersTimeoutMs = 300;
    tcp = await TcpServer.start((socket: net.Socket) => socket.resume());
    const started = Date.now();
    const events = await collect(watchResource(tcp.kubeConfig(), pods));
    expect(types(events)).toEqual(['ERROR:SYSTEM_ERROR']);
    expect((events[0] as Extract<WatchEvent, { type: 'ERROR' }>).error.message).toMatch(/timeout/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a watch body has no time bound: silence longer than headersTimeout, then an event', async () => {
    transportSettings.headersTimeoutMs = 200;
    tcp = await TcpServer.start((socket: net.Socket) =>
      afterRequest(socket, () => {
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        setTimeout(() => {
          const event = line('ADDED', rawPod('late', '1'));
          socket.end(`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n0\r\n\r\n`);
        }, 800);
      }),
    );
    expect(types(await collect(watchResource(tcp.kubeConfig(), pods)))).toEqual(['ADDED']);
  });

  it('idle keep-alive connections never keep the process alive', async () => {
    const raw = await RawServer.start((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [] }));
    });
    try {
      // A process that lists once and has nothing else to do exits, though its connection would
      // stay open for keep-alive for a minute here.
      const script = `
        import { lastValueFrom } from 'rxjs';
        import { fromList } from './src/sources/fromList.ts';
        import { transportSettings } from './src/transport/transportSettings.ts';
        import { buildKubeConfig } from './src/testing/fakeKubeApiServer/kubeConfig.ts';
        transportSettings.keepAliveIdleMs = 60_000;
        const kc = buildKubeConfig(${JSON.stringify(raw.url)}, undefined, 't', { context: 'raw' });
        await lastValueFrom(fromList(kc, { group: '', version: 'v1', plural: 'pods' }));
        globalThis.listedAt = Date.now();
        process.on('exit', () => console.log(Date.now() - globalThis.listedAt));
      `;
      const { stdout } = await run(
        process.execPath,
        ['--import', './bench/register.mjs', '--input-type=module', '-e', script],
        { timeout: 50_000 },
      );
      // Well under the minute (slow machines take a few seconds to wind down a TS process).
      expect(Number(stdout.trim())).toBeLessThan(10_000);
      expect(raw.requests).toHaveLength(1);
    } finally {
      await raw.stop();
    }
  }, 60_000);

  it('a process that only awaits a request over HTTP/2 stays alive until it has its answer', async () => {
    const server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    try {
      server.create(pods, pod('a', '0'));
      const script = `
        import { lastValueFrom } from 'rxjs';
        import { fromList } from './src/sources/fromList.ts';
        import { buildKubeConfig } from './src/testing/fakeKubeApiServer/kubeConfig.ts';
        const kc = buildKubeConfig(${JSON.stringify(server.url)}, ${JSON.stringify((server as unknown as { tls: unknown }).tls)}, ${JSON.stringify(server.token)}, {});
        const { items } = await lastValueFrom(fromList(kc, { group: '', version: 'v1', plural: 'pods' }));
        console.log(items.length);
      `;
      const { stdout } = await run(
        process.execPath,
        ['--import', './bench/register.mjs', '--input-type=module', '-e', script],
        { timeout: 50_000 },
      );
      expect(stdout.trim()).toBe('1');
      expect(server.requests.map((r) => r.httpVersion)).toEqual(['2.0']);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
