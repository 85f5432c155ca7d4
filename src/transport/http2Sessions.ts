import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';
import type { ExchangeResult } from './body.js';
import type { OutgoingRequest } from './outgoingRequest.js';
import { Http2Exchange } from './http2Exchange.js';
import { transportSettings } from './transportSettings.js';

/**
 * Times one request is sent again after a server refused its stream (REFUSED_STREAM: a lowered
 * SETTINGS_MAX_CONCURRENT_STREAMS crossing our new stream): then it fails as any reset does.
 */
const MAX_REFUSALS = 3;

/** The HTTP/2 receive window of a stream (and 16 times it for the session): room for bursts. */
const STREAM_WINDOW_BYTES = 1024 * 1024;
/**
 * How late a PING deadline may fire and still count as on time: later than this (and than half
 * the timeout), the event loop was blocked and the answer may be unread in the socket.
 */
const LATE_TIMER_MS = 100;

/** One HTTP/2 session and the streams it carries. */
interface Session {
  session: http2.ClientHttp2Session;
  /** Resolves once the server's SETTINGS are known (or the session failed). */
  ready: Promise<void>;
  /** Streams open on it. */
  streams: Set<Http2Exchange>;
  /** Requests waiting for `ready` to open a stream on it. */
  reserved: number;
  /** Streams it may carry: the server's SETTINGS_MAX_CONCURRENT_STREAMS, at most kube-rx's. */
  maxStreams: number;
  /** No new stream: GOAWAY came, or it failed. */
  closing: boolean;
  /** Data frames seen since the last liveness check. */
  timer: NodeJS.Timeout | undefined;
}

/** What the first connection of a target told: does the server speak HTTP/2? */
export type Protocol = 'unknown' | 'h2' | 'http/1.1';

/**
 * The HTTP/2 sessions to one target, sized by kube-rx (undici's Agent cannot: it opens a session
 * per request until ALPN answers, or queues streams past the limit for ever). A request takes a
 * stream on a session with room (at most `maxConcurrentStreams`, 100 or fewer when the server's
 * SETTINGS say so) or opens a new session. Sessions carry a watch for as long as it runs; an
 * idle session is unref'd and closed after `keepAliveIdleMs`; a quiet one is checked with PING,
 * and one whose PING goes unanswered, that sends GOAWAY or breaks fails its streams (SYSTEM_ERROR,
 * so a resumed watch carries on from its cursor) and is replaced by the next request.
 *
 * The first connection finds out the protocol (ALPN offering `h2` and `http/1.1`): when the
 * server answers `http/1.1`, `protocol` says so and the caller sends through HTTP/1.1 instead.
 */
export class Http2Sessions {
  protocol: Protocol = 'unknown';
  private readonly sessions = new Set<Session>();
  private probe: Promise<Protocol> | undefined;

  constructor(
    private readonly origin: URL,
    private readonly connector: buildConnector.connector,
    private readonly servername: string | undefined,
  ) {}

  /**
   * Sends one GET on a stream, or resolves `undefined` when the server turned out to speak only
   * HTTP/1.1 (nothing was sent).
   */
  async send(request: OutgoingRequest, refusals = 0): Promise<ExchangeResult | undefined> {
    for (;;) {
      if (request.signal.aborted) return { kind: 'aborted' };
      let entry = this.withRoom();
      if (!entry) {
        if (this.protocol === 'http/1.1') return undefined;
        const opened = await this.open();
        if (opened === 'http/1.1') return undefined;
        if ('failed' in opened) return { kind: 'failed', cause: opened.failed };
        entry = opened;
        // Another request may have filled it meanwhile: take one with room.
        if (entry.closing || entry.streams.size + entry.reserved >= entry.maxStreams) continue;
      }
      entry.reserved++;
      // A request waiting for its stream keeps the process alive, as a running one does.
      entry.session.ref();
      await entry.ready;
      entry.reserved--;
      if (!request.signal.aborted && !entry.closing && entry.streams.size < entry.maxStreams)
        return this.stream(entry, request, refusals);
      this.idle(entry);
    }
  }

  /** Sessions open, for specs and diagnostics. */
  get size(): number {
    return this.sessions.size;
  }

  /** Closes every session once its streams are over. */
  close(): void {
    for (const entry of this.sessions) {
      entry.closing = true;
      if (entry.streams.size === 0) this.drop(entry);
    }
  }

  private withRoom(): Session | undefined {
    for (const entry of this.sessions) {
      if (!entry.closing && entry.streams.size + entry.reserved < entry.maxStreams) return entry;
    }
    return undefined;
  }

  private stream(
    entry: Session,
    request: OutgoingRequest,
    refusals: number,
  ): Promise<ExchangeResult> {
    return new Promise((settle) => {
      const again = () =>
        void this.send(request, refusals + 1).then(
          (result) => settle(result ?? { kind: 'failed', cause: new Error('HTTP/2 refused') }),
          (cause: unknown) => settle({ kind: 'failed', cause }),
        );
      const exchange = new Http2Exchange(
        request,
        settle,
        () => {
          entry.streams.delete(exchange);
          this.idle(entry);
        },
        refusals < MAX_REFUSALS ? again : undefined,
      );
      entry.streams.add(exchange);
      clearTimeout(entry.timer);
      entry.session.ref();
      exchange.open(entry.session);
    });
  }

  /** Opens a session: the socket (ALPN), then HTTP/2 on it. One opening at a time per target. */
  private async open(): Promise<Session | { failed: unknown } | 'http/1.1'> {
    const opening = (this.probe ??= this.connect()).finally(() => (this.probe = undefined));
    // Errors from Node's internals may come from another realm (jest): no `instanceof` here.
    const result = await opening.then(
      (protocol) => protocol,
      (cause: unknown) => ({ failed: cause }),
    );
    if (result === 'http/1.1') return 'http/1.1';
    if (typeof result === 'object') return result;
    return this.withRoom() ?? { failed: new Error('the HTTP/2 session closed at once') };
  }

  private connect(): Promise<Protocol> {
    return new Promise((resolve, reject) => {
      const { hostname, port, protocol } = this.origin;
      this.connector(
        {
          hostname: hostname.replace(/^\[(.*)\]$/, '$1'),
          host: this.origin.host,
          protocol,
          port: port || '443',
          servername: this.servername,
        },
        (error, socket) => {
          if (error || !socket) return reject(error ?? new Error('no socket'));
          if ((socket as TLSSocket).alpnProtocol !== 'h2') {
            this.protocol = 'http/1.1';
            // A connection spent to learn the protocol, once per target.
            socket.destroy();
            return resolve('http/1.1');
          }
          this.protocol = 'h2';
          this.add(socket);
          resolve('h2');
        },
      );
    });
  }

  private add(socket: Socket): void {
    const session = http2.connect(this.origin, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW_BYTES },
    });
    const entry: Session = {
      session,
      ready: undefined as unknown as Promise<void>,
      streams: new Set(),
      reserved: 0,
      maxStreams: transportSettings.http2MaxConcurrentStreams,
      closing: false,
      timer: undefined,
    };
    entry.ready = new Promise<void>((resolve) => {
      session.once('remoteSettings', (settings) => {
        const serverMax = settings.maxConcurrentStreams ?? Infinity;
        entry.maxStreams = Math.min(serverMax, transportSettings.http2MaxConcurrentStreams);
        resolve();
      });
      session.once('close', () => resolve());
    });
    session.on('connect', () => {
      try {
        session.setLocalWindowSize(STREAM_WINDOW_BYTES * 16);
      } catch {
        // Best effort: the default window still works, more slowly.
      }
    });
    session.on('remoteSettings', (settings) => {
      if (settings.maxConcurrentStreams !== undefined)
        entry.maxStreams = Math.min(
          settings.maxConcurrentStreams,
          transportSettings.http2MaxConcurrentStreams,
        );
    });
    session.on('goaway', (code: number) =>
      this.fail(entry, new Error(`the server sent GOAWAY (HTTP/2 error code ${code})`)),
    );
    session.on('error', (cause: Error) => this.fail(entry, cause));
    session.on('frameError', (type: number, code: number, id: number) => {
      if (id === 0) this.fail(entry, new Error(`HTTP/2 frame error (type ${type}, code ${code})`));
    });
    session.on('close', () => this.fail(entry, new Error('the HTTP/2 session closed')));
    // Signs of life are the bytes the session read: node:http2 reads its socket natively, so
    // a 'data' listener on it never fires, while bytesRead counts every frame (TLS or not).
    this.sessions.add(entry);
    this.watchLiveness(entry, socket);
  }

  /**
   * Every `http2PingIdleMs`, a session that carries streams and read nothing since the last check
   * is sent a PING; it is dead when neither the answer nor any other byte arrived within
   * `http2PingTimeoutMs`. A deadline timer that fires late means the event loop was blocked (a
   * long relist, a slow reconcile), not that the peer was silent: the answer may be waiting
   * unread in the socket, so the deadline is armed again rather than failing a live session.
   */
  private watchLiveness(entry: Session, socket: Socket): void {
    let seen = socket.bytesRead;
    const check = setInterval(() => {
      if (entry.closing && entry.streams.size === 0) return clearInterval(check);
      if (socket.bytesRead !== seen || entry.streams.size === 0) {
        seen = socket.bytesRead;
        return;
      }
      this.ping(entry, socket);
      seen = socket.bytesRead;
    }, transportSettings.http2PingIdleMs);
    check.unref();
    entry.session.once('close', () => clearInterval(check));
  }

  /** Sends one PING and fails the session if nothing at all is read before its deadline. */
  private ping(entry: Session, socket: Socket): void {
    const readBefore = socket.bytesRead;
    let answered = false;
    const timeoutMs = transportSettings.http2PingTimeoutMs;
    const arm = () => {
      const armedAt = Date.now();
      const deadline = setTimeout(() => {
        if (answered || entry.closing || socket.bytesRead !== readBefore) return;
        const lateMs = Date.now() - armedAt - timeoutMs;
        if (lateMs > Math.max(LATE_TIMER_MS, timeoutMs / 2)) return arm();
        this.fail(entry, new Error('the HTTP/2 session is dead (PING unanswered)'));
      }, timeoutMs);
      deadline.unref();
      return deadline;
    };
    const deadline = arm();
    try {
      entry.session.ping(() => {
        // A deadline armed again after a late timer sees this flag and does nothing.
        answered = true;
        clearTimeout(deadline);
      });
    } catch {
      // The session is closing: its 'close' fails it.
      answered = true;
      clearTimeout(deadline);
    }
  }

  /** A session without streams is unref'd and closed after `keepAliveIdleMs`. */
  private idle(entry: Session): void {
    if (entry.streams.size > 0 || entry.reserved > 0) return;
    entry.session.unref();
    if (entry.closing) return this.drop(entry);
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (entry.streams.size === 0 && entry.reserved === 0) {
        entry.closing = true;
        this.drop(entry);
      }
    }, transportSettings.keepAliveIdleMs);
    entry.timer.unref();
  }

  /** The session can carry nothing more: its streams fail (SYSTEM_ERROR), it is closed. */
  private fail(entry: Session, cause: Error): void {
    entry.closing = true;
    for (const exchange of [...entry.streams]) exchange.fail(cause);
    this.drop(entry);
  }

  private drop(entry: Session): void {
    clearTimeout(entry.timer);
    this.sessions.delete(entry);
    if (!entry.session.destroyed) entry.session.destroy();
  }
}
