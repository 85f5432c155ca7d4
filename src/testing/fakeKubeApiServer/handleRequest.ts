import type { OutgoingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { applyPatchRequest } from './apply/applyRequest.js';
import { mediaType } from './body.js';
import { answerPreflight, corsHeaders } from './cors.js';
import { handleDelete } from './handleDelete.js';
import { discoveryDocument, healthText, VERSION_INFO } from './discovery.js';
import type { RequestKind } from './FaultInjector.js';
import { APPLY_PATCH } from './patch.js';
import { parsePath } from './paths.js';
import type { Route } from './paths.js';
import { isGone, isHttp2, plainHeaders, withoutConnectionHeaders } from './protocol.js';
import type { Reply, Request } from './protocol.js';
import { isWatchQuery } from './query.js';
import { answerOpenApi } from './openapi/serve.js';
import { handleRead } from './handleRead.js';
import type { ServerContext } from './ServerContext.js';
export type { ServerContext } from './ServerContext.js';
import { appendBounded } from './appendBounded.js';
import { handleScale } from './handleScale.js';
import { sendJson, sendText } from './send.js';
import { checkServed } from './strategy.js';
import { sendStatus, StatusError, statusBody } from './statusBody.js';
import type { RecordedRequest } from './types.js';
import { create, methodNotAllowed, patch, replace } from './writes.js';

/** Query parameters; the first value wins when one is repeated, as `url.Values.Get` does. */
function queryOf(params: URLSearchParams): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in query)) query[k] = v;
  return query;
}

function redacted(req: Request): Record<string, string | string[] | undefined> {
  const headers: Record<string, string | string[] | undefined> = plainHeaders(req);
  if (headers.authorization !== undefined) headers.authorization = '<redacted>';
  return headers;
}

/** Records the request, applies delayHeaders, then handles it. */
export function handleRequest(ctx: ServerContext, req: Request, res: Reply): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const query = queryOf(url.searchParams);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const tls = req.socket as Partial<TLSSocket>;
  const record: RecordedRequest = {
    method: req.method ?? 'GET',
    path: url.pathname,
    query,
    watch: isWatchQuery(query),
    headers: redacted(req),
    hasBearer: bearer !== undefined,
    tokenValid: bearer !== undefined && bearer === ctx.token,
    clientCertValid: ctx.clientCA && tls.authorized === true,
    status: 0,
    at: Date.now(),
    connectionId: ctx.connectionId(req),
    httpVersion: req.httpVersion,
  };
  const writeHead = res.writeHead.bind(res);
  const http2 = isHttp2(req);
  const cors = ctx.cors ? corsHeaders(req.headers.origin) : undefined;
  res.writeHead = (status: number, headers: OutgoingHttpHeaders = {}) => {
    record.status = status;
    const all = cors === undefined ? headers : { ...headers, ...cors };
    // Handlers are protocol-neutral; HTTP/2 refuses HTTP/1.1's connection headers.
    return writeHead(status, http2 ? withoutConnectionHeaders(all) : all);
  };
  appendBounded(ctx.requests, record, ctx.recordLimit);
  ctx.requestArrived();
  // Browsers send preflights without credentials: they come before faults and authentication.
  if (ctx.cors && answerPreflight(req, res)) return;

  const delay = ctx.faults.takeDelay();
  if (delay === undefined) {
    respond(ctx, req, res, url.pathname, query, record);
    return;
  }
  const timer = setTimeout(() => {
    ctx.timers.delete(timer);
    if (!isGone(res)) respond(ctx, req, res, url.pathname, query, record);
  }, delay);
  ctx.timers.add(timer);
  res.on('close', () => {
    clearTimeout(timer);
    ctx.timers.delete(timer);
  });
}

function respond(
  ctx: ServerContext,
  req: Request,
  res: Reply,
  path: string,
  query: Record<string, string>,
  record: RecordedRequest,
): void {
  const headers: Record<string, string> = ctx.keepAlive ? {} : { Connection: 'close' };
  const fail = (e: unknown): void => {
    const status =
      e instanceof StatusError
        ? e.status
        : statusBody(500, `internal error: ${(e as Error).message}`, 'InternalError');
    sendStatus(res, status, ctx.keepAlive);
  };
  try {
    const route = parsePath(path);
    const method = req.method ?? 'GET';
    const kind: RequestKind = record.watch
      ? 'watch'
      : method === 'GET' && route !== undefined && route.kind !== 'log'
        ? 'list'
        : 'other';
    const failure = ctx.faults.takeFailure(kind, path);
    if (failure !== undefined) {
      const details =
        failure.retryAfterSeconds === undefined
          ? undefined
          : { retryAfterSeconds: failure.retryAfterSeconds };
      throw new StatusError(statusBody(failure.status, failure.message, failure.reason, details));
    }
    const authorized =
      ctx.token === null || record.tokenValid || (ctx.clientCA && record.clientCertValid);
    // Health and version are public (system:public-info-viewer): anonymous requests get them,
    // a wrong token still gets 401 as authentication comes first.
    const anonymous = !record.hasBearer && !record.clientCertValid;
    if (method === 'GET' && (authorized || anonymous) && answerPublic(res, path, query, headers)) {
      return;
    }
    if (!authorized) throw new StatusError(statusBody(401, 'Unauthorized', 'Unauthorized'));
    if (route === undefined) {
      if (method === 'GET' && answerOpenApi(res, path, ctx.types, headers, req.headers.accept)) {
        return;
      }
      const doc =
        method === 'GET' ? discoveryDocument(path, ctx.types, ctx.serverAddress()) : undefined;
      if (doc === undefined) {
        throw new StatusError(statusBody(404, 'the server could not find the requested resource'));
      }
      sendJson(res, 200, doc, headers);
      return;
    }
    if (route.kind !== 'log') checkServed(ctx.types, route);
    if (route.kind === 'object' && route.subresource === 'scale') {
      handleScale(ctx, req, res, route, query, headers).catch(fail);
      return;
    }
    if (method === 'GET') {
      handleRead(ctx, res, route, query, headers, req.headers.accept);
      return;
    }
    if (route.kind === 'log') throw methodNotAllowed();
    handleWrite(ctx, req, res, route, query, headers).catch(fail);
  } catch (e) {
    fail(e);
  }
}

/** POST, PUT, PATCH and DELETE of a resource path. */
function handleWrite(
  ctx: ServerContext,
  req: Request,
  res: Reply,
  route: Extract<Route, { kind: 'object' | 'collection' }>,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  switch (req.method) {
    case 'POST':
      return create(ctx, req, res, route, query, headers);
    case 'DELETE':
      return handleDelete(ctx, req, res, route, query, headers);
    case 'PUT':
      if (route.kind !== 'object') break;
      return replace(ctx, req, res, route, query, headers);
    case 'PATCH':
      if (route.kind !== 'object') break;
      if (mediaType(req.headers['content-type']) === APPLY_PATCH) {
        const status = route.subresource === 'status' ? 'status' : undefined;
        return applyPatchRequest(ctx, req, res, route, query, headers, status);
      }
      return patch(ctx, req, res, route, query, headers);
  }
  return Promise.reject(methodNotAllowed());
}

/** `/version`, `/healthz`, `/livez`, `/readyz`: answered, or false for any other path. */
function answerPublic(
  res: Reply,
  path: string,
  query: Record<string, string>,
  headers: Record<string, string>,
): boolean {
  if (path === '/version' || path === '/version/') {
    sendJson(res, 200, VERSION_INFO, headers);
    return true;
  }
  const health = healthText(path, query.verbose !== undefined);
  if (health === undefined) return false;
  sendText(res, health, headers);
  return true;
}
