import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execKubeConfig } from '../support/execKubeConfig.js';
import { RawServer, line, rawPod } from '../support/rawServer.js';
import { removeTempDirs, tempDir } from '../support/tempDirs.js';
import { TcpServer, afterRequest, kubeConfigFor } from '../hostile/support.js';
import { everythingFrom, leaks } from './support.js';

// The bearer token must never come out of kube-rx: not in an event, an error (message, cause,
// stack, own properties), a lifecycle event, nor a log line, whatever the server or the
// credential plugin says. Each scenario runs every source and operator that talks to a cluster
// (see everythingFrom) and scans all they produced. See findings.spec.ts for what still leaks.
const TOKEN = `kube-rx-secret-${randomBytes(12).toString('hex')}`;

describe('the bearer token never comes out', () => {
  let raw: RawServer;
  beforeAll(async () => {
    raw = await RawServer.start();
  });
  afterAll(() => raw.stop());

  const scan = async (handler: RawServer['handler']) => {
    raw.handler = handler;
    raw.requests.length = 0;
    const texts = await everythingFrom(raw.kubeConfig(TOKEN));
    expect(raw.requests.length).toBeGreaterThan(0);
    // The token was sent: the server had it to echo.
    expect(raw.requests.some((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    return texts;
  };

  it('(control) the scan sees what a server says: a marker echoed in a Status shows up', async () => {
    const texts = await scan((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 403, message: 'marker-7f3a denied' }));
    });
    expect(leaks(texts, 'marker-7f3a').length).toBeGreaterThan(3);
  });

  it.each([
    [401, 'text/html', (auth: string) => `<html><pre>Authorization: ${auth}</pre></html>`],
    [403, 'text/plain', (auth: string) => `forbidden for ${auth.replace('Bearer ', '')}`],
    [500, 'text/html', (auth: string) => `<html>${JSON.stringify({ authorization: auth })}</html>`],
    [502, 'application/json', (auth: string) => `{"broken json, ${auth}`],
  ])('an HTTP %i %s body echoing the credential', async (code, type, body) => {
    const texts = await scan((req, res) => {
      res.writeHead(code, { 'content-type': type });
      res.end(body(String(req.headers.authorization)));
    });
    expect(leaks(texts, TOKEN)).toEqual([]);
  });

  it('a 401 whose WWW-Authenticate and other headers echo the credential', async () => {
    const texts = await scan((req, res) => {
      res.writeHead(401, {
        'content-type': 'text/plain',
        'www-authenticate': `Bearer realm="k8s", error="invalid_token", token="${TOKEN}"`,
        'x-echo': String(req.headers.authorization),
      });
      res.end('Unauthorized');
    });
    expect(leaks(texts, TOKEN)).toEqual([]);
  });

  it('watch lines that carry the credential and are not events are skipped without echo', async () => {
    const texts = await scan((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        `debug: ${req.headers.authorization}\n` +
          `{"type":"BOGUS","object":{"token":"${TOKEN}"}}\n` +
          `{"type":"ADDED","object":"${TOKEN}"}\n` +
          line('ADDED', rawPod('a', '1')),
      );
    });
    expect(leaks(texts, TOKEN)).toEqual([]);
  });

  it('a redirect whose Location carries the credential', async () => {
    const texts = await scan((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:1/login?token=${TOKEN}` });
      res.end(`Found. Redirecting to /login?token=${TOKEN}`);
    });
    expect(leaks(texts, TOKEN)).toEqual([]);
  });

  it('network failures: connection refused, reset before and after the headers', async () => {
    const reset = await TcpServer.start((socket) =>
      afterRequest(socket, () => {
        socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
        setTimeout(() => socket.resetAndDestroy(), 5);
      }),
    );
    const refusedUrl = reset.url.replace(/:\d+$/, ':1');
    try {
      for (const url of [refusedUrl, reset.url]) {
        const kc = kubeConfigFor(url, TOKEN);
        expect(leaks(await everythingFrom(kc, {}, { pipelineMs: 800 }), TOKEN)).toEqual([]);
      }
    } finally {
      await reset.stop();
    }
  });

  describe('credential plugins that fail', () => {
    const dir = tempDir('security');
    afterAll(removeTempDirs);
    const execConfig = (script: string) => {
      const plugin = join(dir, `plugin-${randomBytes(4).toString('hex')}.cjs`);
      writeFileSync(plugin, script);
      return execKubeConfig(raw.url, plugin);
    };
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: TOKEN },
    });

    it.each([
      ['stderr token=', `process.stderr.write('refresh failed: token=${TOKEN}'); process.exit(1);`],
      ['stderr Bearer', `process.stderr.write('Authorization: Bearer ${TOKEN}'); process.exit(1);`],
      ['stderr JSON', `process.stderr.write('{"access_token":"${TOKEN}"}'); process.exit(1);`],
      ['truncated JSON', `process.stdout.write(${JSON.stringify(credential.slice(0, -2))});`],
      [
        'a credential and exit 1',
        `process.stdout.write(${JSON.stringify(credential)}); process.exit(1);`,
      ],
      [
        'a credential on stderr too',
        `process.stderr.write(${JSON.stringify(credential)}); process.exit(3);`,
      ],
    ])('%s', async (_what, script) => {
      raw.handler = (_req, res) => res.end();
      const texts = await everythingFrom(execConfig(script), {}, { pipelineMs: 800 });
      expect(texts.join('\n')).toMatch(/could not resolve credentials/);
      expect(leaks(texts, TOKEN)).toEqual([]);
    });
  });
});
