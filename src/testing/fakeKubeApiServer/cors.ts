import type { OutgoingHttpHeaders } from 'node:http';
import type { Reply, Request } from './protocol.js';
import { sendStatus, statusBody } from './statusBody.js';

/** Origins a `cors: true` server lets in: loopback pages only, any port. */
const LOOPBACK_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/;

/** Response headers a page needs to read: the body type, retry hints, warnings. */
const EXPOSED = 'Content-Type, Content-Length, Retry-After, Warning, Audit-Id';

/** The CORS headers for a request from `origin`, or undefined when it is not let in. */
export function corsHeaders(origin: string | undefined): OutgoingHttpHeaders | undefined {
  if (origin === undefined || !LOOPBACK_ORIGIN.test(origin)) return undefined;
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED,
    Vary: 'Origin',
  };
}

/**
 * Answers a CORS preflight (OPTIONS with Access-Control-Request-Method): 204 with the allowed
 * methods and the requested headers for a loopback origin, a 403 Status otherwise. False when
 * the request is no preflight.
 */
export function answerPreflight(req: Request, res: Reply): boolean {
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) {
    return false;
  }
  const cors = corsHeaders(req.headers.origin);
  if (cors === undefined) {
    sendStatus(
      res,
      statusBody(403, `origin ${String(req.headers.origin)} is not allowed`, 'Forbidden'),
    );
    return true;
  }
  const asked = req.headers['access-control-request-headers'];
  res.writeHead(204, {
    ...cors,
    'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE',
    'Access-Control-Allow-Headers':
      typeof asked === 'string' ? asked : 'Authorization, Content-Type, Accept',
    'Access-Control-Max-Age': '600',
  });
  res.end();
  return true;
}
