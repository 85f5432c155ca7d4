import { createHash } from 'node:crypto';
import { buildConnector } from 'undici';
import type { ResolvedTls } from '../types.js';
import { Http1Pool } from './http1Pool.js';
import { proxyConnector } from './proxyTunnel.js';
import { settingsKey, socketOptions } from './settings.js';

/** Dispatchers kept at once; the least recently used beyond this is closed once its requests end. */
const MAX_DISPATCHERS = 32;

/** What makes two requests share connections: the same origin, TLS material and proxy. */
export interface DispatcherTarget {
  /** `https://host:port` or `http://host:port`. */
  origin: string;
  tls: ResolvedTls | undefined;
  /** The proxy URL, when the request goes through one. */
  proxy: string | undefined;
}

const pools = new Map<string, Http1Pool>();

/**
 * The HTTP/1.1 connections of a target, made once and kept (keep-alive: lists, logs and
 * reconnects reuse their sockets). Sockets have TCP keep-alive, connecting and the response
 * head are bounded, a body is not; idle sockets are unref'd and closed after `keepAliveIdleMs`,
 * so they never keep the process alive.
 */
export function poolFor(target: DispatcherTarget): Http1Pool {
  const key = targetKey(target);
  let pool = pools.get(key);
  if (pool) {
    // Most recently used last.
    pools.delete(key);
    pools.set(key, pool);
    return pool;
  }
  pool = new Http1Pool(target.origin, connectorFor(target));
  pools.set(key, pool);
  if (pools.size > MAX_DISPATCHERS) {
    const [oldestKey, oldest] = pools.entries().next().value as [string, Http1Pool];
    pools.delete(oldestKey);
    // Graceful: the requests it carries (watches, say) run to their end first.
    oldest.close();
  }
  return pool;
}

/** How a target's sockets are made: straight to the server, or tunnelled through its proxy. */
export function connectorFor({ tls, proxy }: DispatcherTarget): buildConnector.connector {
  const toServer = buildConnector({ ...socketOptions(), ...tlsOptions(tls) });
  return proxy === undefined ? toServer : proxyConnector(proxy, toServer);
}

/** The TLS options of a connection to the API server (verification on unless turned off). */
export function tlsOptions(tls: ResolvedTls | undefined): Record<string, unknown> {
  if (!tls) return {};
  const options: Record<string, unknown> = {};
  if (tls.ca !== undefined) options.ca = tls.ca;
  if (tls.cert !== undefined) options.cert = tls.cert;
  if (tls.key !== undefined) options.key = tls.key;
  if (tls.servername !== undefined && tls.servername !== '') options.servername = tls.servername;
  if (tls.rejectUnauthorized === false) options.rejectUnauthorized = false;
  return options;
}

function targetKey({ origin, tls, proxy }: DispatcherTarget): string {
  const hash = createHash('sha256');
  for (const part of [
    origin,
    proxy ?? '',
    tls?.ca ?? '',
    tls?.cert ?? '',
    tls?.key ?? '',
    tls?.servername ?? '',
    String(tls?.rejectUnauthorized ?? ''),
    settingsKey(),
  ]) {
    hash.update(typeof part === 'string' ? part : part.toString('latin1'));
    hash.update('\0');
  }
  return hash.digest('base64');
}
