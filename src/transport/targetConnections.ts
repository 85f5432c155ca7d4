import { createHash } from 'node:crypto';
import { buildConnector } from 'undici';
import type { ResolvedTls } from '../types.js';
import { Http1Pool } from './http1Pool.js';
import { Http2Sessions } from './http2Sessions.js';
import { proxyConnector } from './proxyConnector.js';
import { settingsKey, socketOptions } from './transportSettings.js';

/** Targets kept at once; the least recently used beyond this is closed once its requests end. */
const MAX_TARGETS = 32;

/** What makes two requests share connections: the same origin, TLS material and proxy. */
export interface Target {
  /** `https://host:port` or `http://host:port`. */
  origin: string;
  tls: ResolvedTls | undefined;
  /** The proxy URL, when the request goes through one. */
  proxy: string | undefined;
}

/**
 * The connections kube-rx keeps to one target: HTTP/1.1 ones, and HTTP/2 sessions (https), made
 * on first use; `close()` closes both.
 */
export class TargetConnections {
  readonly http1: Http1Pool;
  private sessions: Http2Sessions | undefined;

  constructor(private readonly target: Target) {
    this.http1 = new Http1Pool(target.origin, connectorFor(target, false));
  }

  /** Made on first use: only https targets that may speak HTTP/2 have them. */
  http2(): Http2Sessions {
    return (this.sessions ??= new Http2Sessions(
      new URL(this.target.origin),
      connectorFor(this.target, true),
      this.target.tls?.servername || undefined,
    ));
  }

  /** Closes both protocols' connections, gracefully: the requests they carry run to their end. */
  close(): void {
    this.http1.close();
    this.sessions?.close();
  }
}

const targets = new Map<string, TargetConnections>();

/**
 * The connections of a target, made once and kept (keep-alive: lists, logs and reconnects
 * reuse them). Sockets have TCP keep-alive, connecting and the response head are bounded, a body
 * is not; idle connections are unref'd and closed after `keepAliveIdleMs`, so they never keep
 * the process alive. Past 32 targets, the least recently used one is closed (both protocols).
 *
 * @example
 * const connections = connectionsFor({ origin: 'https://127.0.0.1:6443', tls, proxy: undefined });
 */
export function connectionsFor(target: Target): TargetConnections {
  const key = targetKey(target);
  let found = targets.get(key);
  if (found) {
    // Most recently used last.
    targets.delete(key);
    targets.set(key, found);
    return found;
  }
  const made = new TargetConnections(target);
  targets.set(key, made);
  if (targets.size > MAX_TARGETS) {
    const [oldestKey, oldest] = targets.entries().next().value as [string, TargetConnections];
    targets.delete(oldestKey);
    // Graceful: the requests they carry (watches, say) run to their end first.
    oldest.close();
  }
  found = made;
  return found;
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

/**
 * How a target's sockets are made: straight to the server, or tunnelled through its proxy;
 * `http2` offers `h2` by ALPN as well as `http/1.1`.
 */
function connectorFor({ tls, proxy }: Target, http2: boolean): buildConnector.connector {
  const toServer = buildConnector({ ...socketOptions(), ...tlsOptions(tls), allowH2: http2 });
  return proxy === undefined ? toServer : proxyConnector(proxy, toServer);
}

/** Per origin, proxy and transport settings: the last TLS material seen, and its key. */
const recentKeys = new Map<string, { tls: ResolvedTls | undefined; key: string }>();

/**
 * What makes requests share connections, as a Map key: the origin, the proxy, the transport
 * settings and a digest of the TLS material (never the material itself: a client key is no
 * Map key). Requests to one target resolve the same material again and again: the digest of
 * the last one is kept per origin and found by comparing values, where hashing a CA, a
 * certificate and a key per request cost a write more than its own path validation.
 */
function targetKey(target: Target): string {
  const { origin, tls, proxy } = target;
  const plain = `${origin}\0${proxy ?? ''}\0${settingsKey()}`;
  const recent = recentKeys.get(plain);
  if (recent !== undefined && sameTls(recent.tls, tls)) return recent.key;
  const key = digest(target);
  if (recentKeys.size >= MAX_TARGETS) recentKeys.clear();
  // Copies of Buffers: a caller that changed one in place would otherwise still match it.
  const kept = tls && { ...tls, ca: copy(tls.ca), cert: copy(tls.cert), key: copy(tls.key) };
  recentKeys.set(plain, { tls: kept, key });
  return key;
}

function copy<T extends string | Buffer | undefined>(value: T): T {
  return (Buffer.isBuffer(value) ? Buffer.from(value) : value) as T;
}

function sameTls(a: ResolvedTls | undefined, b: ResolvedTls | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    sameBytes(a.ca, b.ca) &&
    sameBytes(a.cert, b.cert) &&
    sameBytes(a.key, b.key) &&
    a.servername === b.servername &&
    a.rejectUnauthorized === b.rejectUnauthorized
  );
}

/** Equal strings, or equal Buffers (a string and a Buffer are not: the digest decides then). */
function sameBytes(a: string | Buffer | undefined, b: string | Buffer | undefined): boolean {
  if (a === b) return true;
  return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
}

function digest({ origin, tls, proxy }: Target): string {
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
