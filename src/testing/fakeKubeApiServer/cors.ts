import type { Reply, Request } from './protocol.js';

/** A page origin on this machine: http(s) on 127.0.0.1, localhost or [::1], any port. */
const LOOPBACK_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/;

/** Headers a page may read from an answer (besides the CORS-safelisted ones). */
const EXPOSED = 'Retry-After, Warning, Audit-Id';

/**
 * CORS for pages on another loopback origin (`cors: true`), as a kube-apiserver started with
 * `--cors-allowed-origins` for them would answer: a preflight (OPTIONS with
 * Access-Control-Request-Method) from such an origin is answered 204 allowing the method and
 * headers asked for, without reaching the API; every other request from it gets its origin
 * allowed and Retry-After exposed. Other origins get no CORS header: the browser refuses them.
 *
 * @example
 * const handle = withCors((req, res) => handleRequest(ctx, req, res));
 */
export function withCors(
  handler: (req: Request, res: Reply) => void,
): (req: Request, res: Reply) => void {
  return (req, res) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !LOOPBACK_ORIGIN.test(origin)) return handler(req, res);
    // ServerResponse and Http2ServerResponse both have setHeader: its headers join every head
    // the handlers write, whichever way they write it.
    const head = res as Reply & { setHeader(name: string, value: string): void };
    head.setHeader('access-control-allow-origin', origin);
    head.setHeader('vary', 'Origin');
    const method = req.headers['access-control-request-method'];
    if (req.method === 'OPTIONS' && typeof method === 'string') {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    head.setHeader('access-control-expose-headers', EXPOSED);
    handler(req, res);
  };
}
