import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { lastValueFrom, toArray } from 'rxjs';
import { resolveConnection } from '../../src/client/connection/resolveConnection.js';
import { fromList } from '../../src/sources/fromList.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { ClusterConnection, WatchEvent } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { ConnectProxy } from '../support/connectProxy.js';
import { collect } from '../support/rawServer.js';
import { sleep, until } from '../support/wait.js';

/** The server's KubeConfig with `proxy-url` set on its cluster. */
function viaProxy(server: FakeKubeApiServer, proxyUrl: string): KubeConfig {
  const kc = server.kubeConfig();
  kc.clusters = kc.clusters.map((cluster) => ({ ...cluster, proxyUrl }));
  return kc;
}

const types = (events: WatchEvent[]) =>
  events.map((e) => (e.type === 'ERROR' ? `ERROR:${e.error.errorType}` : e.type));

describe('proxies', () => {
  let server: FakeKubeApiServer | undefined;
  let proxy: ConnectProxy | undefined;
  afterEach(async () => {
    await server?.stop();
    await proxy?.stop();
    server = proxy = undefined;
  });

  for (const tls of [true, false]) {
    it(`the kubeconfig's proxy-url carries watches, lists and logs (${tls ? 'https, HTTP/2 in the tunnel' : 'http'})`, async () => {
      server = await FakeKubeApiServer.start({ tls, bookmarkIntervalMs: 0 });
      proxy = await ConnectProxy.start();
      server.create(pods, pod('a', '0'));
      server.appendLog('default', 'a', 'through the proxy');
      const kc = viaProxy(server, proxy.url());
      expect(types(await collect(watchResource(kc, pods, { timeoutSeconds: 1 })))).toEqual([
        'ADDED',
      ]);
      expect(
        types(await lastValueFrom(fromWatch(kc, pods, { timeoutSeconds: 1 }).pipe(toArray()))),
      ).toEqual(['ADDED']);
      expect((await lastValueFrom(fromList(kc, pods))).items).toHaveLength(1);
      const logs = await lastValueFrom(
        fromPodLogs(kc, { namespace: 'default', name: 'a' }).pipe(toArray()),
      );
      expect(logs).toEqual(['through the proxy']);
      expect(proxy.tunnels).toBeGreaterThan(0);
      expect(new Set(proxy.connectTargets)).toEqual(new Set([new URL(server.url).host]));
      expect(server.requests).toHaveLength(4);
      if (tls) expect(server.requests.every((r) => r.httpVersion === '2.0')).toBe(true);
    });
  }

  it('a proxy that holds a watch answer, headers included, until its first event still works', async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    proxy = await ConnectProxy.start({ holdWatchUntilFirstEvent: true });
    const kc = viaProxy(server, proxy.url());
    const events: WatchEvent[] = [];
    const subscription = fromWatch(kc, pods).subscribe((e) => events.push(e));
    try {
      await until(() => server!.openWatches === 1, 'the watch to reach the server');
      await sleep(300);
      expect(events).toEqual([]);
      server.create(pods, pod('late', '0'));
      await until(() => events.length === 1, 'the first event through the proxy');
      expect(types(events)).toEqual(['ADDED']);
      expect(proxy.held[0].heldMs).toBeGreaterThanOrEqual(250);
      server.create(pods, pod('later', '0'));
      await until(() => events.length === 2, 'the next event');
    } finally {
      subscription.unsubscribe();
    }
    // Unsubscribing closed the tunnel too.
    await until(() => server!.openWatches === 0, 'the watch to close', 1000);
  });

  it('credentials in the proxy URL are sent as Proxy-Authorization; without them the proxy refuses', async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    proxy = await ConnectProxy.start({ credentials: 'proxy-user:proxy-secret-1' });
    server.create(pods, pod('a', '0'));
    const refused = await collect(
      watchResource(viaProxy(server, proxy.url()), pods, { timeoutSeconds: 1 }),
    );
    expect(types(refused)).toEqual(['ERROR:SYSTEM_ERROR']);
    expect(proxy.refused).toBe(1);
    expect(server.requests).toHaveLength(0);
    const passed = await collect(
      watchResource(viaProxy(server, proxy.url(true)), pods, { timeoutSeconds: 1 }),
    );
    expect(types(passed)).toEqual(['ADDED']);
  });

  it("a custom connection's proxy is used exactly as resolved", async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    proxy = await ConnectProxy.start();
    server.create(pods, pod('a', '0'));
    const resolved = await resolveConnection(server.kubeConfig());
    const custom: ClusterConnection = {
      resolve: async () => ({ ...resolved, proxy: proxy!.url() }),
    };
    expect((await lastValueFrom(fromList(custom, pods))).items).toHaveLength(1);
    expect(proxy.tunnels).toBe(1);
  });

  describe('from the environment, as kubectl reads it', () => {
    const saved = { ...process.env };
    afterEach(() => {
      for (const name of [
        'HTTPS_PROXY',
        'https_proxy',
        'HTTP_PROXY',
        'http_proxy',
        'NO_PROXY',
        'no_proxy',
      ])
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    });

    const clusterAt = (server: string, proxyUrl?: string) => {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server, skipTLSVerify: false, ...(proxyUrl && { proxyUrl }) }],
        users: [{ name: 'u', token: 'env-token' }],
        contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
        currentContext: 'c',
      });
      return kc;
    };

    it('HTTPS_PROXY for https servers, NO_PROXY names, subdomains, CIDRs and *, never loopback', async () => {
      process.env.HTTPS_PROXY = 'http://proxy.corp:3128';
      process.env.NO_PROXY = 'internal.example,10.0.0.0/8';
      const proxyOf = async (url: string) => (await resolveConnection(clusterAt(url))).proxy;
      expect(await proxyOf('https://kube.example.com:6443')).toBe('http://proxy.corp:3128/');
      expect(await proxyOf('https://api.internal.example:6443')).toBeUndefined();
      expect(await proxyOf('https://10.1.2.3:6443')).toBeUndefined();
      expect(await proxyOf('https://127.0.0.1:6443')).toBeUndefined();
      expect(await proxyOf('https://localhost:6443')).toBeUndefined();
      process.env.NO_PROXY = '*';
      expect(await proxyOf('https://kube.example.com:6443')).toBeUndefined();
      // The kubeconfig's proxy-url wins over the environment.
      expect(
        (await resolveConnection(clusterAt('https://kube.example.com', 'http://kc.proxy:8080')))
          .proxy,
      ).toBe('http://kc.proxy:8080/');
    });
  });
});
