import { constants as h2 } from 'node:http2';
import type { FakeKubeApiServer } from '../../src/testing/index.js';
import type { Prng } from './prng.js';
import type { RotatingCredentials } from './workload.js';

/** Every kind of fault FakeKubeApiServer can inject, as the chaos and soak runs name them. */
export const FAULT_KINDS = [
  'drop',
  'cut-line',
  'stall',
  'http-500',
  'http-503',
  'http-429',
  'expire-history',
  'rotate-token',
  'restart',
  'close-immediately',
  'delay-headers',
] as const;

/**
 * Faults only an HTTP/2 server can send (the soak over HTTP/2 adds them to the round): a GOAWAY
 * on every session, graceful or as a session error, and a RST_STREAM on every open stream.
 */
export const HTTP2_FAULT_KINDS = ['goaway', 'goaway-error', 'reset-streams'] as const;

export type FaultKind = (typeof FAULT_KINDS)[number] | (typeof HTTP2_FAULT_KINDS)[number];

/** Settings of a {@link FaultInjection}. */
export interface FaultSettings {
  /** The idle timeout of the pipeline: a stall lasts longer than this. */
  idleTimeoutMs: number;
  /** The kinds a round fires (default {@link FAULT_KINDS}). */
  kinds?: readonly FaultKind[];
}

/**
 * Fires faults on a FakeKubeApiServer, every kind once per round in a seeded shuffled order, so
 * a run of a few rounds has fired every kind. Stream faults (drop, cut-line, stall,
 * close-immediately) are armed for the next watch connection, failures for the next request.
 */
export class FaultInjection {
  /** How often each kind fired (the kinds of the round only). */
  readonly fired: Record<FaultKind, number>;
  private round: FaultKind[] = [];
  /** `Date.now()` when the last fault was put in place (undefined before the first). */
  lastFiredAt: number | undefined;

  constructor(
    private readonly server: FakeKubeApiServer,
    private readonly credentials: RotatingCredentials,
    private readonly random: Prng,
    private readonly settings: FaultSettings,
  ) {
    const kinds = settings.kinds ?? FAULT_KINDS;
    this.fired = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  }

  get total(): number {
    return Object.values(this.fired).reduce((a, b) => a + b, 0);
  }

  /** Fires the next fault of the round; resolves once it is in place (a restart is listening again). */
  async fireNext(): Promise<FaultKind> {
    if (this.round.length === 0)
      this.round = this.random.shuffle(this.settings.kinds ?? FAULT_KINDS);
    const kind = this.round.shift()!;
    await this.fire(kind);
    return kind;
  }

  async fire(kind: FaultKind): Promise<void> {
    const { server, random } = this;
    const idle = this.settings.idleTimeoutMs;
    switch (kind) {
      case 'drop':
        server.faults.dropAfter(random.int(4));
        break;
      case 'cut-line':
        server.faults.cutLine({ afterEvents: random.int(3) });
        break;
      case 'stall':
        server.faults.stall(Math.round(idle * (1.5 + random.next())));
        break;
      case 'http-500':
        server.faults.fail(500, { match: random.pick(['any', 'watch', 'any'] as const) });
        break;
      case 'http-503':
        server.faults.fail(503, { retryAfterSeconds: 1, times: 1 + random.int(2) });
        break;
      case 'http-429':
        server.faults.fail(429, { retryAfterSeconds: 1, match: 'any' });
        break;
      case 'expire-history':
        server.expireHistory();
        break;
      case 'rotate-token':
        this.credentials.rotate();
        break;
      case 'restart':
        await server.restart();
        break;
      case 'close-immediately':
        server.faults.closeImmediately();
        break;
      case 'delay-headers':
        server.faults.delayHeaders(Math.round(idle * (0.2 + 1.3 * random.next())));
        break;
      case 'goaway':
        server.goaway();
        break;
      case 'goaway-error':
        server.goaway(h2.NGHTTP2_INTERNAL_ERROR);
        break;
      case 'reset-streams':
        server.resetStreams(h2.NGHTTP2_INTERNAL_ERROR);
        break;
    }
    this.fired[kind] = (this.fired[kind] ?? 0) + 1;
    this.lastFiredAt = Date.now();
  }

  /** Disarms whatever was armed and not yet consumed. */
  reset(): void {
    this.server.faults.reset();
  }
}
