import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig, type User } from '@kubernetes/client-node';
import { mayCarryCredentials } from '../../src/security/mayCarryCredentials.js';
import { resolveConnection } from '../../src/client/connection/resolveConnection.js';
import { kubeConfigConnection } from '../../src/client/connection/kubeConfigConnection.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { leaderElection } from '../../src/controller/leaderElection.js';
import { firstValueFrom, toArray } from 'rxjs';
import { pod } from '../../src/testing/marbles/builders.js';
import type { Cluster, ClusterConnection, Logger } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { ConnectProxy } from '../support/connectProxy.js';
import { collect } from '../support/rawServer.js';
import { removeTempDirs, tempDir } from '../support/tempDirs.js';
import { pods } from './support.js';

// DESIGN "Security defaults": a KubeConfig's credentials go over TLS, or over plain HTTP to a
// loopback host as written; never in clear across a network (kubectl attaches them to TLS only).
// Every connection here stays on 127.0.0.1: the non-loopback name `kube.example.test` is
// resolved to 127.0.0.1 by the spec's own proxy, never looked up.

describe('mayCarryCredentials', () => {
  it.each([
    ['https://kube.example.test:6443', undefined, true],
    ['https://10.0.0.1:6443', 'http://proxy.example.test:3128', true],
    ['http://127.0.0.1:8001', undefined, true],
    ['http://127.3.4.5:8001', undefined, true],
    ['http://localhost:8001', undefined, true],
    ['http://LOCALHOST:8001', undefined, true],
    ['http://[::1]:8001', undefined, true],
    ['http://[0:0:0:0:0:0:0:1]:8001', undefined, true],
    ['http://127.0.0.1:8001', 'http://127.0.0.1:3128', true],
    ['http://127.0.0.1:8001', 'https://proxy.example.test:3128', true],
    ['http://kube.example.test:8080', undefined, false],
    ['http://10.0.0.1:8080', undefined, false],
    ['http://[::2]:8080', undefined, false],
    ['http://[::ffff:127.0.0.1]:8080', undefined, false],
    // Names that merely resolve to 127.0.0.1 are not loopback as written.
    ['http://localtest.me:8080', undefined, false],
    ['http://127.0.0.1.nip.io:8080', undefined, false],
    ['http://localhost.:8080', undefined, false],
    ['http://kube.example.test:8080', 'http://127.0.0.1:3128', false],
    // The token would travel in clear to the proxy, which forwards a plain-HTTP request.
    ['http://127.0.0.1:8001', 'http://proxy.example.test:3128', false],
    ['http://localhost:8001', 'socks5://proxy.example.test:1080', false],
    ['ftp://127.0.0.1', undefined, false],
    ['not a url', undefined, false],
  ])('%s through %s: %s', (server, proxy, expected) => {
    expect(mayCarryCredentials(server, proxy)).toBe(expected);
  });
});

const NAME = 'kube.example.test';

/** A logger that keeps its warnings. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}

/** A KubeConfig of one cluster `c` at `server` (through `proxyUrl`) and the user `user`. */
function kubeConfigOf(
  server: string,
  user: Omit<User, 'name'>,
  cluster: { proxyUrl?: string; caData?: string; tlsServerName?: string } = {},
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // client-node 1.4 refuses an http:// server unless skipTLSVerify is set (there is no TLS).
    clusters: [{ name: 'c', server, skipTLSVerify: server.startsWith('http:'), ...cluster }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

describe('credentials from a KubeConfig over plain HTTP', () => {
  let server: FakeKubeApiServer;
  let proxy: ConnectProxy;
  let dir: string;
  let ran: string;
  let plugin: string;
  const saved = { ...process.env };
  beforeAll(async () => {
    // No proxy from the environment of whoever runs the specs.
    for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'])
      delete process.env[name];
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    server.create(pods, pod('web-1', ''));
    proxy = await ConnectProxy.start({ names: { [NAME]: '127.0.0.1' } });
    dir = tempDir('plain-http');
    ran = join(dir, 'ran');
    plugin = join(dir, 'plugin.cjs');
    // Marks that it ran: over plain HTTP to a host elsewhere it must not even run.
    writeFileSync(
      plugin,
      `require('fs').writeFileSync(${JSON.stringify(ran)}, '1');
       process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1',
         kind: 'ExecCredential', status: { token: ${JSON.stringify(server.token)} } }));`,
    );
  });
  afterAll(async () => {
    await server.stop();
    await proxy.stop();
    process.env = saved;
  });
  afterAll(removeTempDirs);

  const users = (): Array<[string, Omit<User, 'name'>]> => [
    ['a token', { token: server.token! }],
    [
      'an exec plugin',
      {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [plugin],
          interactiveMode: 'Never',
        },
      },
    ],
    ['an auth provider', { authProvider: { name: 'gcp', config: { 'access-token': 'ap-1' } } }],
    ['basic auth', { username: 'admin', password: 'basic-password' }],
  ];
  const port = () => new URL(server.url).port;
  /** What the server saw of the last request: whether it carried an Authorization header. */
  const lastAuthorization = () => server.requests.at(-1)?.headers.authorization;

  for (const [kind, index] of [
    ['a token', 0],
    ['an exec plugin', 1],
    ['an auth provider', 2],
    ['basic auth', 3],
  ] as const) {
    it(`sends ${kind} to http://127.0.0.1, and not to the same server as http://${NAME}`, async () => {
      const user = users()[index][1];
      const logger = recordingLogger();
      const before = server.requests.length;
      const direct = kubeConfigOf(server.url, user);
      await collect(watchResource(direct, pods, { timeoutSeconds: 1, logger }));
      expect(server.requests.length).toBe(before + 1);
      expect(lastAuthorization()).toBe('<redacted>');
      expect(existsSync(ran)).toBe(index === 1);
      expect(logger.warnings).toEqual([]);

      rmSync(ran, { force: true });
      const byName = kubeConfigOf(`http://${NAME}:${port()}`, user, { proxyUrl: proxy.url() });
      const events = await collect(watchResource(byName, pods, { timeoutSeconds: 1, logger }));
      // The same server, reached under the name: it saw the request, without credentials.
      expect(server.requests.length).toBe(before + 2);
      expect(proxy.connectTargets.at(-1)).toBe(`${NAME}:${port()}`);
      expect(lastAuthorization()).toBeUndefined();
      expect(events).toEqual([
        expect.objectContaining({
          type: 'ERROR',
          error: expect.objectContaining({ errorType: 'UNAUTHORIZED_ERROR' }),
        }),
      ]);
      // The plugin did not even run: no credential was fetched to be left out.
      expect(existsSync(ran)).toBe(false);
      expect(logger.warnings).toEqual(['the cluster c is plain HTTP: credentials are not sent']);
    });
  }

  it('withholds them from a pod log stream too, and says so through its logger', async () => {
    const user = { token: server.token! };
    const logger = recordingLogger();
    const before = server.requests.length;
    const byName = kubeConfigOf(`http://${NAME}:${port()}`, user, { proxyUrl: proxy.url() });
    const logs = firstValueFrom(
      fromPodLogs(byName, { namespace: 'default', name: 'web-1', logger }).pipe(toArray()),
    );
    await expect(logs).rejects.toMatchObject({ errorType: 'UNAUTHORIZED_ERROR' });
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests.at(-1)?.path).toContain('/pods/web-1/log');
    expect(lastAuthorization()).toBeUndefined();
    expect(logger.warnings).toEqual(['the cluster c is plain HTTP: credentials are not sent']);
  });

  it('withholds them from a leader election too, and says so through its logger', async () => {
    const logger = recordingLogger();
    const before = server.requests.length;
    const byName = kubeConfigOf(
      `http://${NAME}:${port()}`,
      { token: server.token! },
      {
        proxyUrl: proxy.url(),
      },
    );
    const election = leaderElection(byName, {
      namespace: 'default',
      name: 'plain-http',
      identity: 'a',
      logger,
    }).subscribe();
    try {
      const deadline = Date.now() + 10_000;
      while (server.requests.length === before && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      election.unsubscribe();
    }
    expect(server.requests.at(before)?.path).toContain('/leases/plain-http');
    expect(server.requests.at(before)?.headers.authorization).toBeUndefined();
    expect(logger.warnings).toContain('the cluster c is plain HTTP: credentials are not sent');
  });

  it('warns once per cluster, through the logger of the request, and never a credential', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'east', server: `http://${NAME}:${port()}`, proxyUrl: proxy.url() },
        { name: 'west', server: `http://${NAME}:${port()}`, proxyUrl: proxy.url() },
        { name: 'local', server: server.url, skipTLSVerify: true },
      ],
      users: [{ name: 'u', token: server.token! }],
      contexts: ['east', 'west', 'local'].map((name) => ({ name, cluster: name, user: 'u' })),
      currentContext: 'east',
    });
    const logger = recordingLogger();
    const watch = (cluster: Cluster) =>
      collect(watchResource(cluster, pods, { timeoutSeconds: 1, logger }));
    await watch(kc);
    await watch(kc);
    const west = kubeConfigConnection(kc, { context: 'west' });
    await watch(west);
    await watch(west);
    await watch(kubeConfigConnection(kc, { context: 'local' }));
    expect(logger.warnings).toEqual([
      'the cluster east is plain HTTP: credentials are not sent',
      'the cluster west is plain HTTP: credentials are not sent',
    ]);
    expect(logger.warnings.join('\n')).not.toContain(server.token!);
    // The connection's own logger, when it has one, hears it instead.
    const own = recordingLogger();
    await watch(kubeConfigConnection(kc, { context: 'west', logger: own }));
    expect(own.warnings).toEqual(['the cluster west is plain HTTP: credentials are not sent']);
    expect(logger.warnings).toHaveLength(2);
  });

  it('leaves the token out when a plain-HTTP proxy elsewhere would carry it, even to loopback', async () => {
    // Resolution only: nothing connects to the proxy's name.
    const kc = kubeConfigOf(
      server.url,
      { token: server.token! },
      { proxyUrl: `http://proxy.${NAME}:3128` },
    );
    const logger = recordingLogger();
    const resolved = await resolveConnection(kc, { logger });
    expect(resolved.headers).toEqual({});
    expect(resolved.proxy).toBe(`http://proxy.${NAME}:3128/`);
    expect(logger.warnings).toEqual(['the cluster c is plain HTTP: credentials are not sent']);
    const overTls = kubeConfigOf(
      server.url,
      { token: server.token! },
      { proxyUrl: `https://proxy.${NAME}:3128` },
    );
    expect((await resolveConnection(overTls)).headers?.authorization).toBe(
      `Bearer ${server.token}`,
    );
  });

  it("sends a ClusterConnection's headers as resolved, over plain HTTP to any host", async () => {
    const custom: ClusterConnection = {
      name: 'custom',
      resolve: async () => ({
        server: `http://${NAME}:${port()}`,
        headers: { authorization: `Bearer ${server.token}` },
        proxy: proxy.url(),
      }),
    };
    const logger = recordingLogger();
    const events = await collect(watchResource(custom, pods, { timeoutSeconds: 1, logger }));
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(lastAuthorization()).toBe('<redacted>');
    expect(logger.warnings).toEqual([]);
  });
});

describe('credentials from a KubeConfig over TLS', () => {
  let server: FakeKubeApiServer;
  let proxy: ConnectProxy;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    server.create(pods, pod('web-1', ''));
    proxy = await ConnectProxy.start({ names: { [NAME]: '127.0.0.1' } });
  });
  afterAll(async () => {
    await server.stop();
    await proxy.stop();
  });
  afterEach(() => {
    proxy.connectTargets.length = 0;
  });

  it(`sends the token to https://${NAME}`, async () => {
    const kc = kubeConfigOf(
      `https://${NAME}:${new URL(server.url).port}`,
      { token: server.token! },
      {
        proxyUrl: proxy.url(),
        caData: Buffer.from(server.caPem!).toString('base64'),
        // The test server's certificate names localhost and the loopback addresses.
        tlsServerName: 'localhost',
      },
    );
    const logger = recordingLogger();
    const events = await collect(watchResource(kc, pods, { timeoutSeconds: 1, logger }));
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(proxy.connectTargets).toEqual([`${NAME}:${new URL(server.url).port}`]);
    expect(server.requests.at(-1)).toMatchObject({ hasBearer: true, tokenValid: true });
    expect(logger.warnings).toEqual([]);
  });
});
