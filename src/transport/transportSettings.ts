/**
 * The transport's limits. Internal (not exported from the package): the defaults are what
 * DESIGN "Transport" fixes; specs lower them to see a bound act without waiting 30 s.
 */
export const transportSettings = {
  /** Connecting (TCP, TLS, a proxy's CONNECT) must finish within this. */
  connectTimeoutMs: 30_000,
  /** The response head must arrive within this after the request is sent. A body has no bound. */
  headersTimeoutMs: 30_000,
  /** TCP keep-alive probes start after this much silence on a socket. */
  tcpKeepAliveMs: 30_000,
  /**
   * An idle keep-alive socket is closed after this: long enough for the pages of a list and an
   * immediate reconnect, short enough that nothing lingers after a pipeline ends.
   */
  keepAliveIdleMs: 500,
  /** An HTTP/2 session that carried nothing for this long is checked with a PING. */
  http2PingIdleMs: 30_000,
  /** A PING unanswered for this long means the session is dead. */
  http2PingTimeoutMs: 15_000,
  /** Streams per HTTP/2 session unless the server allows fewer. */
  http2MaxConcurrentStreams: 100,
};

/** The settings that make a dispatcher what it is (part of its cache key). */
export function settingsKey(): string {
  const s = transportSettings;
  return `${s.connectTimeoutMs}/${s.headersTimeoutMs}/${s.tcpKeepAliveMs}/${s.keepAliveIdleMs}`;
}

/** Socket options of every connection kube-rx makes: TCP keep-alive, a bound on connecting. */
export function socketOptions(): {
  keepAlive: true;
  keepAliveInitialDelay: number;
  timeout: number;
} {
  const s = transportSettings;
  return { keepAlive: true, keepAliveInitialDelay: s.tcpKeepAliveMs, timeout: s.connectTimeoutMs };
}
