import type { Http2Session, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import { markServerReset, resetByServer } from './protocol.js';
import type { Http2Records } from './types.js';

interface SessionState {
  /** Id of the connection the session runs on ({@link ConnectionLogEntry.id}). */
  id: number;
  openStreams: number;
  /** The server sent GOAWAY and closes the session once its streams end. */
  closing: boolean;
}

/**
 * Records the HTTP/2 sessions of a FakeKubeApiServer and their streams: what tests assert on (how many
 * sessions and streams, resets by the client) and the HTTP/2 faults (GOAWAY, RST_STREAM).
 */
export class Http2SessionRecorder {
  private readonly sessions = new Map<Http2Session, SessionState>();
  private readonly open = new Set<ServerHttp2Stream>();
  private sessionCount = 0;
  private streamCount = 0;
  private clientResets = 0;
  private peak = 0;

  constructor(private readonly onChange: () => void) {}

  /** Follows a new session running on connection `id`. */
  track(session: ServerHttp2Session, id: number): void {
    this.sessionCount++;
    const state: SessionState = { id, openStreams: 0, closing: false };
    this.sessions.set(session, state);
    session.on('stream', (stream: ServerHttp2Stream) => this.trackStream(stream, session, state));
    session.on('close', () => {
      this.sessions.delete(session);
      this.onChange();
    });
    // A session error (a peer that breaks the protocol) ends that session only.
    session.on('error', () => undefined);
    this.onChange();
  }

  /** The connection id a session runs on (0 if unknown). */
  connectionIdOf(session: Http2Session): number {
    return this.sessions.get(session)?.id ?? 0;
  }

  private trackStream(
    stream: ServerHttp2Stream,
    session: ServerHttp2Session,
    state: SessionState,
  ): void {
    this.streamCount++;
    state.openStreams++;
    this.open.add(stream);
    this.peak = Math.max(this.peak, this.open.size);
    stream.on('aborted', () => {
      if (resetByServer(stream)) return;
      // A RST_STREAM from the client aborts one stream and its session lives on; a socket that
      // goes away aborts every stream and then destroys the session (within the same turn).
      setImmediate(() => {
        if (!session.destroyed && (state.closing || !session.closed)) this.clientResets++;
        this.onChange();
      });
    });
    stream.on('error', () => undefined);
    stream.on('close', () => {
      state.openStreams--;
      this.open.delete(stream);
      this.onChange();
    });
    this.onChange();
  }

  get records(): Http2Records {
    const openStreamsPerSession = [...this.sessions.values()].map((s) => s.openStreams);
    return {
      sessions: this.sessionCount,
      openSessions: this.sessions.size,
      openStreamsPerSession,
      streams: this.streamCount,
      openStreams: this.open.size,
      peakOpenStreams: this.peak,
      streamsResetByClient: this.clientResets,
    };
  }

  /**
   * Sends GOAWAY on every open session. NO_ERROR closes it gracefully: streams already open go
   * on until they end, new requests need a new session (kube-apiserver's `--goaway-chance`).
   * Another code is a session error: the session and its streams end at once.
   */
  goaway(errorCode: number): void {
    for (const [session, state] of this.sessions) {
      if (state.closing || session.closed || session.destroyed) continue;
      state.closing = true;
      if (errorCode === 0) session.close();
      else {
        for (const stream of this.open) if (stream.session === session) markServerReset(stream);
        session.goaway(errorCode);
        // destroy() right away could drop the GOAWAY frame; clients close on it anyway.
        setTimeout(() => session.destroy(), 50).unref();
      }
    }
  }

  /** Resets (RST_STREAM `errorCode`) every open stream now; the sessions live on. */
  resetStreams(errorCode: number): number {
    const streams = [...this.open];
    for (const stream of streams) {
      markServerReset(stream);
      if (!stream.destroyed) stream.close(errorCode);
    }
    return streams.length;
  }

  /** Destroys every session (the server stops). */
  destroyAll(): void {
    for (const session of this.sessions.keys()) session.destroy();
  }
}
