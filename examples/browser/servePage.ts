import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page served by {@link servePage}. */
export interface ServedPage {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves one page on 127.0.0.1 (a free port unless `port` is given): `html` at `/`, `script`
 * (an ES module) at `/page.js`, 404 for anything else. No caching, nothing read from disk.
 *
 * @example
 * const page = await servePage({ html: '<script type="module" src="/page.js"></script>', script });
 * console.log(page.url);
 */
export async function servePage({
  html,
  script,
  port = 0,
}: {
  html: string;
  script: string;
  port?: number;
}): Promise<ServedPage> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const body = path === '/' ? html : path === '/page.js' ? script : undefined;
    if (req.method !== 'GET' || body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, {
      'content-type': path === '/' ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
