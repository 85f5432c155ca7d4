import { afterEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { Subscription } from 'rxjs';
import { kubeConfigConnection } from '../../src/client/connection/kubeConfigConnection.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { transportSettings } from '../../src/transport/transportSettings.js';
import { ConnectProxy } from '../support/connectProxy.js';
import { until } from '../support/wait.js';

/** One TCP socket of this machine as the kernel lists it (`/proc/net/tcp`). */
interface KernelSocket {
  remotePort: number;
  /** 2 while the keep-alive timer runs (1 retransmit, 4 zero-window probe, 0 none). */
  timer: number;
  /** Seconds until that timer fires. */
  timerSeconds: number;
}

/** The kernel's clock_t unit of `/proc/net/tcp` (USER_HZ, 100 on Linux). */
const USER_HZ = 100;
const ESTABLISHED = 0x01;

/**
 * The established client sockets to `port` on 127.0.0.1, read from the kernel: what was really
 * set on the socket, whatever code set it (a keep-alive asked of undici and lost on the way
 * would show here as no timer, or as undici's own 60 s default).
 */
function socketsTo(port: number): KernelSocket[] {
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((row) => row.trim().split(/\s+/))
    .filter((cols) => cols.length > 5)
    .map(([, , remote, state, , timer]) => ({
      remotePort: parseInt(remote!.split(':')[1]!, 16),
      state: parseInt(state!, 16),
      timer: parseInt(timer!.split(':')[0]!, 16),
      timerSeconds: parseInt(timer!.split(':')[1]!, 16) / USER_HZ,
    }))
    .filter((s) => s.state === ESTABLISHED && s.remotePort === port)
    .map(({ remotePort, timer, timerSeconds }) => ({ remotePort, timer, timerSeconds }));
}

const linuxOnly = process.platform === 'linux' ? describe : describe.skip;

linuxOnly('TCP keep-alive on every socket (DESIGN "Transport": 30 s)', () => {
  let server: FakeKubeApiServer | undefined;
  let proxy: ConnectProxy | undefined;
  let subscription: Subscription | undefined;
  afterEach(async () => {
    subscription?.unsubscribe();
    await server?.stop();
    await proxy?.stop();
    server = proxy = undefined;
  });

  /**
   * Opens a watch that stays open (through `proxy` if set), and returns the kernel's view of
   * its socket(s): to the server, or to the proxy.
   */
  async function watchSockets(
    protocol: '1.1' | '2.0',
    options: { tls: boolean },
  ): Promise<KernelSocket[]> {
    server = await FakeKubeApiServer.start({ ...options, bookmarkIntervalMs: 0 });
    server.create(pods, pod('a', '1'));
    const kc = server.kubeConfig();
    if (proxy) kc.clusters = kc.clusters.map((cluster) => ({ ...cluster, proxyUrl: proxy!.url() }));
    const source =
      protocol === '1.1' && options.tls ? kubeConfigConnection(kc, { http2: false }) : kc;
    let events = 0;
    subscription = fromWatch(source, pods).subscribe(() => events++);
    await until(() => events > 0, 'the watch to get its first event', 10_000);
    expect(server.requests.map((r) => r.httpVersion)).toEqual([protocol]);
    const port = Number(new URL(proxy ? proxy.url() : server.url).port);
    // The watch is idle now; a timer other than keep-alive (a retransmit) would only be brief.
    let sockets: KernelSocket[] = [];
    await until(
      () => (sockets = socketsTo(port)).length > 0 && sockets.every((s) => s.timer !== 1),
      () => `an idle socket to port ${port}: ${JSON.stringify(sockets)}`,
      10_000,
    );
    return sockets;
  }

  const expectKeepAlive = (sockets: KernelSocket[], seconds: number) => {
    for (const socket of sockets) {
      expect(socket.timer).toBe(2);
      // Set when the socket connected, a few seconds ago at most (a slow machine): under the
      // setting, and well under undici's own default of 60 s or the kernel's 2 h.
      expect(socket.timerSeconds).toBeLessThanOrEqual(seconds);
      expect(socket.timerSeconds).toBeGreaterThan(seconds - 15);
    }
  };

  it('is 30 s by default', () => {
    expect(transportSettings.tcpKeepAliveMs).toBe(30_000);
  });

  it('an HTTP/1.1 watch socket has it', async () => {
    expectKeepAlive(await watchSockets('1.1', { tls: false }), 30);
  });

  it('an HTTP/1.1 socket over TLS (http2: false) has it', async () => {
    expectKeepAlive(await watchSockets('1.1', { tls: true }), 30);
  });

  it('an HTTP/2 session socket has it', async () => {
    expectKeepAlive(await watchSockets('2.0', { tls: true }), 30);
  });

  it('a socket to a CONNECT proxy has it (HTTP/1.1 and HTTP/2 in the tunnel)', async () => {
    proxy = await ConnectProxy.start();
    expectKeepAlive(await watchSockets('1.1', { tls: false }), 30);
    await server!.stop();
    await proxy.stop();
    proxy = await ConnectProxy.start();
    expectKeepAlive(await watchSockets('2.0', { tls: true }), 30);
  });
});
