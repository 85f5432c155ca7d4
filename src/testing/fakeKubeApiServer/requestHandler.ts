import type { OutgoingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { pods } from '../../sources/resources.js';
import { isGone, isHttp2, plainHeaders, withoutConnectionHeaders } from './protocol.js';
import type { Reply, Request } from './protocol.js';
import { appendBounded } from './records.js';
import { discoveryDocument, healthText, VERSION_INFO } from './discovery.js';
import type { ResourceTypes } from './resourceTypes.js';
import { sendJson, sendText } from './send.js';
import type { FaultInjector, RequestKind } from './faults.js';
import { handleList } from './listHandler.js';
import { objectKey } from './objectStore.js';
import type { ObjectStore } from './objectStore.js';
import { parsePath } from './paths.js';
import type { Route } from './paths.js';
import { parseLogQuery } from './podLogs.js';
import type { PodLogs } from './podLogs.js';
import { isWatchQuery, parseCollectionQuery } from './query.js';
import { sendStatus, StatusError, statusBody, tooLarge } from './statusBody.js';
import type { RecordedRequest } from './types.js';
import { WatchConnection } from './watchStream.js';

/** What the request handler shares with the server. */
export interface ServerContext {
  readonly objects: ObjectStore;
  readonly types: ResourceTypes;
  /** `127.0.0.1:PORT`, for discovery's serverAddressByClientCIDRs. */
  serverAddress(): string;
  readonly logs: PodLogs;
  readonly faults: FaultInjector;
  readonly watches: Set<WatchConnection>;
  readonly requests: RecordedRequest[];
  /** How many requests are kept. */
  readonly recordLimit: number;
  /** Timers of delayed requests, cleared by `stop()`. */
  readonly timers: Set<NodeJS.Timeout>;
  token: string | null;
  readonly clientCA: boolean;
  readonly bookmarkIntervalMs: number;
  readonly keepAlive: boolean;
  connectionId(req: Request): number;
  /** Counts a request (`requests` is trimmed at `recordLimit`) and wakes `waitForRequests`. */
  requestArrived(): void;
}

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
  res.writeHead = (status: number, headers: OutgoingHttpHeaders = {}) => {
    record.status = status;
    // Handlers are protocol-neutral; HTTP/2 refuses HTTP/1.1's connection headers.
    return writeHead(status, http2 ? withoutConnectionHeaders(headers) : headers);
  };
  appendBounded(ctx.requests, record, ctx.recordLimit);
  ctx.requestArrived();

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
  try {
    const route = parsePath(path);
    const kind: RequestKind = record.watch
      ? 'watch'
      : route !== undefined && route.kind !== 'log'
        ? 'list'
        : 'other';
    const failure = ctx.faults.takeFailure(kind);
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
    if (
      req.method === 'GET' &&
      (authorized || anonymous) &&
      answerPublic(res, path, query, headers)
    ) {
      return;
    }
    if (!authorized) throw new StatusError(statusBody(401, 'Unauthorized', 'Unauthorized'));
    if (req.method === 'GET' && route === undefined) {
      const doc = discoveryDocument(path, ctx.types, ctx.serverAddress());
      if (doc !== undefined) {
        sendJson(res, 200, doc, headers);
        return;
      }
    }
    if (req.method !== 'GET') {
      throw new StatusError(
        statusBody(405, `the server does not allow this method on the requested resource`),
      );
    }
    if (route === undefined) {
      throw new StatusError(statusBody(404, 'the server could not find the requested resource'));
    }
    dispatch(ctx, res, route, query, headers);
  } catch (e) {
    const status =
      e instanceof StatusError
        ? e.status
        : statusBody(500, `internal error: ${(e as Error).message}`, 'InternalError');
    sendStatus(res, status, ctx.keepAlive);
  }
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

function notFound(plural: string, name: string): StatusError {
  return new StatusError(
    statusBody(404, `${plural} "${name}" not found`, 'NotFound', { name, kind: plural }),
  );
}

function dispatch(
  ctx: ServerContext,
  res: Reply,
  route: Route,
  query: Record<string, string>,
  headers: Record<string, string>,
): void {
  if (route.kind === 'log') {
    const known =
      ctx.objects.resource(pods).objects.has(objectKey(route.namespace, route.name)) ||
      ctx.logs.has(route.namespace, route.name);
    if (!known) throw notFound('pods', route.name);
    ctx.logs.serve(res, route.namespace, route.name, parseLogQuery(query), headers);
    return;
  }
  const q = parseCollectionQuery(route, query);
  if (q.resourceVersion !== undefined && q.resourceVersion > ctx.objects.rv) {
    throw new StatusError(tooLarge(q.resourceVersion, ctx.objects.rv));
  }
  const store = ctx.objects.resource(route.resource);
  if (q.watch) {
    const watch = new WatchConnection(res, ctx.objects, store, q, {
      bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      headers,
      takePlan: () => ctx.faults.takeWatchPlan(),
      onClose: (w) => ctx.watches.delete(w),
    });
    ctx.watches.add(watch);
    watch.start();
    return;
  }
  if (route.kind === 'object') {
    const entry = store.objects.get(objectKey(route.namespace, route.name));
    if (entry === undefined) throw notFound(route.resource.plural, route.name);
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(entry.json),
    });
    res.end(entry.json);
    return;
  }
  handleList(res, ctx.objects, store, q, headers);
}
