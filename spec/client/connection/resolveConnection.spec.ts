import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { resolveConnection } from '../../../src/client/connection/resolveConnection.js';
import { kubeConfigConnection } from '../../../src/client/connection/kubeConfigConnection.js';
import { pods } from '../../../src/objects/resources.js';
import { watchResource } from '../../../src/watch.js';
import { FakeKubeApiServer } from '../../../src/testing/index.js';
import { execKubeConfig } from '../../support/execKubeConfig.js';
import { RawServer, collect, streamChunks } from '../../support/rawServer.js';
import { removeTempDirs, tempDir } from '../../support/tempDirs.js';

function kubeConfigFor(
  clusters: Array<{ name: string; server: string; token: string }>,
  current: string,
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: clusters.map((c) => ({ name: c.name, server: c.server, skipTLSVerify: true })),
    users: clusters.map((c) => ({ name: c.name, token: c.token })),
    contexts: clusters.map((c) => ({ name: c.name, cluster: c.name, user: c.name })),
    currentContext: current,
  });
  return kc;
}

describe('connection resolution', () => {
  let a: RawServer;
  let b: RawServer;
  beforeAll(async () => {
    a = await RawServer.start(streamChunks([]));
    b = await RawServer.start(streamChunks([]));
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });
  afterAll(removeTempDirs);

  it('uses the current context, or a named one without changing the KubeConfig', async () => {
    const kc = kubeConfigFor(
      [
        { name: 'a', server: a.url, token: 'token-a' },
        { name: 'b', server: b.url, token: 'token-b' },
      ],
      'a',
    );
    await collect(watchResource(kc, pods));
    await collect(watchResource(kubeConfigConnection(kc, { context: 'b' }), pods));
    expect(a.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-a']);
    expect(b.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-b']);
    expect(kc.getCurrentContext()).toBe('a');
    expect(() => kubeConfigConnection(kc, { context: 'nope' })).toThrow(/no context named "nope"/);
  });

  it('runs exec credential plugins afresh for every request, so rotated tokens are used on reconnect', async () => {
    const dir = tempDir('exec');
    const counter = join(dir, 'count');
    writeFileSync(counter, '0');
    const plugin = join(dir, 'plugin.cjs');
    writeFileSync(
      plugin,
      `const fs = require('fs'); const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
       fs.writeFileSync(${JSON.stringify(counter)}, String(n));
       process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'exec-' + n } }));`,
    );
    const kc = execKubeConfig(a.url, plugin);
    a.requests.length = 0;
    await collect(watchResource(kc, pods));
    await collect(watchResource(kc, pods));
    expect(a.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer exec-1',
      'Bearer exec-2',
    ]);
  });

  it('a failing credential plugin gives UNAUTHORIZED_ERROR whose message says why and carries no secret', async () => {
    const dir = tempDir('exec');
    const plugin = join(dir, 'fail.cjs');
    writeFileSync(
      plugin,
      `process.stderr.write('refresh failed for token=s3cr3t-value'); process.exit(3);`,
    );
    const kc = execKubeConfig(a.url, plugin);
    a.requests.length = 0;
    const [event] = await collect(watchResource(kc, pods));
    expect(event).toMatchObject({
      type: 'ERROR',
      error: { errorType: 'UNAUTHORIZED_ERROR', statusCode: 401 },
    });
    const message = event.type === 'ERROR' ? event.error.message : '';
    expect(message).toMatch(/could not resolve credentials/);
    expect(message).not.toContain('s3cr3t-value');
    expect(a.requests).toHaveLength(0);
  });

  it('never puts the bearer token in an error, whatever the server answers', async () => {
    const token = 'super-secret-token-value';
    const echo = await RawServer.start((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          code: 401,
          message: `rejected ${req.headers.authorization}`,
        }),
      );
    });
    try {
      const [event] = await collect(watchResource(echo.kubeConfig(token), pods));
      expect(
        JSON.stringify(
          event.type === 'ERROR' && {
            message: event.error.message,
            path: event.error.resourcePath,
          },
        ),
      ).not.toContain(token);
    } finally {
      await echo.stop();
    }
  });

  it('skips TLS verification only when the KubeConfig says so', async () => {
    const tls = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    try {
      const kc = kubeConfigFor([{ name: 'x', server: tls.url, token: 'test-token' }], 'x');
      const events = await collect(watchResource(kc, pods, { timeoutSeconds: 1 }));
      expect(events).toEqual([]);
      expect(tls.requests).toHaveLength(1);
      const resolved = await resolveConnection(kc);
      expect(resolved.tls?.rejectUnauthorized).toBe(false);
      const verified = await resolveConnection(tls.kubeConfig());
      expect(verified.tls?.rejectUnauthorized).not.toBe(false);
      expect(verified.tls?.ca).toBeDefined();
    } finally {
      await tls.stop();
    }
  });
});
