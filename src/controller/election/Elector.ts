import { microTime } from '../../objects/microTime.js';
import type { Subscription } from 'rxjs';
import type { ElectionSettings } from './electionSettings.js';
import type { LeaseApi, LeaseObject } from './leaseApi.js';

/** What one try to acquire or renew came to. */
type ElectionAttempt = 'held' | 'other' | 'failed';

/** What makes two observations of the lease the same record (client-go compares the record). */
export function recordKey(lease: LeaseObject): string {
  const spec = lease.spec ?? {};
  return JSON.stringify([
    lease.metadata.resourceVersion,
    spec.holderIdentity ?? '',
    spec.renewTime ?? '',
  ]);
}

/**
 * client-go's leader election loop over one Lease, as a state machine driven by the scheduler.
 *
 * - Every `retryPeriodMs` (from the start of the previous try) it tries to acquire or renew:
 *   read the lease (a leader whose last write succeeded skips the read and writes on the
 *   version it holds; a 409 makes it read again at once), create it when there is none, take
 *   it when it is free or expired, renew it when it is ours. Every write carries the version
 *   read, so two replicas can never both succeed.
 * - Expiry: the lease's record (version, holder, renew time) is remembered with the time this
 *   process first saw it, on the local monotonic clock; it has expired `leaseDuration` after
 *   that (the longer of ours and the one the holder wrote), whatever its timestamps say.
 * - A leader's deadline is `renewDeadlineMs` after the START of its last successful write (the
 *   server applied it after that, so every standby saw it later still): at the deadline it
 *   stops leading, aborting the try in flight. Seeing another holder ends it at once.
 * - `stop()` while leading releases the lease: holder cleared, on the version last seen (a 409
 *   reads it again and releases only if it is still ours).
 */
export class Elector {
  private leading = false;
  private stopped = false;
  private observed: LeaseObject | undefined;
  private observedKey = '';
  private observedAt = 0;
  /** Whether our last write succeeded: the next renewal may skip the read. */
  private fresh = false;
  private tick: Subscription | undefined;
  private deadline: Subscription | undefined;
  /**
   * When the write of the current try was sent: a lease held counts from there, not from the
   * try's read before it (a slow read must not eat the leader's time; the server applied the
   * write after it was sent, so every standby saw it later still).
   */
  private writeStarted = 0;
  private inFlight: AbortController | undefined;
  /** When the next try is scheduled (Infinity before start() and while a try runs). */
  private nextTryAt = Infinity;
  /** The earliest time a notice made during a try asked for the next one. */
  private noticedDue = Infinity;

  constructor(
    private readonly api: LeaseApi,
    private readonly settings: ElectionSettings,
    private readonly emit: (leading: boolean) => void,
  ) {}

  /** Emits `false` (not leading yet) and makes the first try at once. */
  start(): void {
    this.emit(false);
    this.schedule(0);
  }

  /**
   * An observation of the lease made outside this Elector, on the same clock (`settings.now`):
   * `lease` as first seen at `at`, by a watch of it or before this Elector existed. A standby
   * judges expiry from its earliest sighting of a record: its own reads see a renewal up to a
   * retry period after a watch did, and a claim of a dead holder's lease would wait that much
   * longer. A record other than the one held is taken only when seen no earlier than it (a
   * watch that lags shows an older record later, never one judged older than it is); a wrong
   * pick costs a 409 at most, as every write carries the version it was made on. Ignored while
   * leading: our own writes are the record then.
   *
   * A record noticed free (released: no holder) or expiring before the next try brings that try
   * forward: a standby that only polls takes a released lease up to a retry period late, and a
   * member that stopped gracefully would leave its objects unowned that long. The try still
   * reads the lease and decides on what it reads.
   */
  notice(lease: LeaseObject, at: number): void {
    if (this.leading || this.stopped) return;
    const key = recordKey(lease);
    if (key === this.observedKey) {
      this.observedAt = Math.min(this.observedAt, at);
    } else if (this.observed === undefined || at >= this.observedAt) {
      this.observed = lease;
      this.observedKey = key;
      this.observedAt = at;
    }
    const observed = this.observed!;
    const free = (observed.spec?.holderIdentity ?? '') === '';
    const due = free ? this.settings.now() : this.observedAt + this.validForMs(observed);
    // A try in flight may have read the record before this one: the next comes at `due`.
    if (this.inFlight !== undefined) this.noticedDue = Math.min(this.noticedDue, due);
    // Before start() there is no try to bring forward: start() makes the first at once.
    else if (this.nextTryAt !== Infinity && due < this.nextTryAt) {
      this.tick?.unsubscribe();
      this.schedule(due - this.settings.now());
    }
  }

  /**
   * Stops trying; a leader releases the lease (in the background, bounded in time), unless
   * `release` is false: then the lease is left to expire, as if this process had died.
   */
  stop(release = true): void {
    if (this.stopped) return;
    this.stopped = true;
    this.tick?.unsubscribe();
    this.deadline?.unsubscribe();
    this.inFlight?.abort();
    if (this.leading) {
      this.leading = false;
      if (release) void this.release();
    }
  }

  private schedule(delayMs: number): void {
    // A try that ends after stop() (an emit's listener may stop us) schedules nothing more.
    if (this.stopped) return;
    const delay = Math.max(0, delayMs);
    this.nextTryAt = this.settings.now() + delay;
    this.tick = this.settings.scheduler.schedule(() => void this.run(), delay);
  }

  private async run(): Promise<void> {
    const { now, retryPeriodMs, renewDeadlineMs, scheduler } = this.settings;
    const started = now();
    const attempt = new AbortController();
    this.inFlight = attempt;
    this.nextTryAt = Infinity;
    this.noticedDue = Infinity;
    // A leader's try is cut by its deadline (lose()); a standby's by the same span.
    const timeout = this.leading
      ? undefined
      : scheduler.schedule(() => attempt.abort(), renewDeadlineMs);
    const outcome = await this.tryAcquireOrRenew(attempt.signal);
    timeout?.unsubscribe();
    if (this.inFlight === attempt) this.inFlight = undefined;
    if (this.stopped) return;
    if (outcome === 'held') this.held(this.writeStarted);
    else if (outcome === 'other' && this.leading) this.lose('the lease has another holder');
    let next = started + retryPeriodMs;
    // A standby tries again the moment the holder's lease expires, not up to a period later.
    if (outcome === 'other' && this.observed !== undefined) {
      next = Math.min(next, this.observedAt + this.validForMs(this.observed));
    }
    if (outcome !== 'held') next = Math.min(next, this.noticedDue);
    this.schedule(next - now());
  }

  /** A write that started at `started` succeeded: we lead until `started + renewDeadlineMs`. */
  private held(started: number): void {
    const { now, renewDeadlineMs, scheduler, logger, identity } = this.settings;
    const left = started + renewDeadlineMs - now();
    // An answer that came after the deadline proves nothing about now.
    if (left <= 0) return;
    this.deadline?.unsubscribe();
    this.deadline = scheduler.schedule(
      () => this.lose(`no renewal succeeded for ${renewDeadlineMs} ms`),
      left,
    );
    if (!this.leading) {
      this.leading = true;
      logger?.debug?.(`leaderElection: ${identity} is leading`);
      this.emit(true);
    }
  }

  private lose(why: string): void {
    if (!this.leading || this.stopped) return;
    this.leading = false;
    this.fresh = false;
    this.deadline?.unsubscribe();
    this.inFlight?.abort();
    this.settings.logger?.warn(`leaderElection: ${this.settings.identity} stopped leading: ${why}`);
    this.emit(false);
  }

  private observe(lease: LeaseObject): void {
    const key = recordKey(lease);
    if (key !== this.observedKey) {
      this.observedKey = key;
      this.observedAt = this.settings.now();
    }
    this.observed = lease;
  }

  /** How long the observed record stays valid after we first saw it. */
  private validForMs(lease: LeaseObject): number {
    const written = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
    return Math.max(this.settings.leaseDurationMs, written);
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<ElectionAttempt> {
    const { identity, logger } = this.settings;
    if (this.leading && this.fresh && this.observed !== undefined) {
      this.writeStarted = this.settings.now();
      const renewed = await this.api.update(this.claim(this.observed), signal);
      if (renewed.ok) return this.wrote(renewed.value);
      this.fresh = false;
      if (renewed.error.statusCode !== 409) return this.failed('renew', renewed.error);
      // Someone moved the lease: read it again before anything else.
    }
    const got = await this.api.get(signal);
    if (!got.ok) return this.failed('read', got.error);
    if (got.value === undefined) {
      this.writeStarted = this.settings.now();
      const created = await this.api.create(this.claim(undefined), signal);
      return created.ok ? this.wrote(created.value) : this.failed('create', created.error);
    }
    const lease = got.value;
    this.observe(lease);
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== '' && holder !== identity) {
      if (this.leading) return 'other';
      if (this.settings.now() < this.observedAt + this.validForMs(lease)) return 'other';
      logger?.debug?.(`leaderElection: the lease of ${holder} expired; ${identity} takes it`);
    }
    this.writeStarted = this.settings.now();
    const updated = await this.api.update(this.claim(lease), signal);
    return updated.ok ? this.wrote(updated.value) : this.failed('update', updated.error);
  }

  private wrote(lease: LeaseObject): ElectionAttempt {
    this.observe(lease);
    this.fresh = true;
    return 'held';
  }

  private failed(what: string, error: { statusCode: number; message: string }): ElectionAttempt {
    if (this.stopped) return 'failed';
    this.fresh = false;
    const log = this.settings.logger;
    // A 409 is the algorithm working (another replica wrote first), not a fault.
    if (error.statusCode === 409) log?.debug?.(`leaderElection: ${what}: ${error.message}`);
    else log?.warn(`leaderElection: ${what} of the lease failed: ${error.message}`);
    return 'failed';
  }

  /** The lease as we write it to acquire or renew it (`undefined`: a new one). */
  private claim(lease: LeaseObject | undefined): LeaseObject {
    const { identity, leaseDurationMs } = this.settings;
    const spec = lease?.spec ?? {};
    const ours = spec.holderIdentity === identity;
    const time = microTime(Date.now());
    return {
      ...lease,
      metadata: lease?.metadata ?? { name: '' },
      spec: {
        ...spec,
        holderIdentity: identity,
        // The Lease holds whole seconds: round up, so a standby never waits less than we said.
        leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
        acquireTime: ours && spec.acquireTime ? spec.acquireTime : time,
        renewTime: time,
        leaseTransitions: ours ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? -1) + 1,
      },
    };
  }

  /** Clears the holder (client-go's ReleaseOnCancel), so a standby takes over at its next try. */
  private async release(): Promise<void> {
    const { scheduler, renewDeadlineMs, identity, logger } = this.settings;
    const attempt = new AbortController();
    const timeout = scheduler.schedule(() => attempt.abort(), renewDeadlineMs);
    try {
      let lease = this.observed;
      for (let tries = 0; tries < 2 && lease !== undefined; tries++) {
        if (lease.spec?.holderIdentity !== identity) return;
        const time = microTime(Date.now());
        const cleared: LeaseObject = {
          ...lease,
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: time },
        };
        const put = await this.api.update(cleared, attempt.signal);
        if (put.ok) {
          logger?.debug?.(`leaderElection: ${identity} released the lease`);
          return;
        }
        if (put.error.statusCode !== 409) break;
        const got = await this.api.get(attempt.signal);
        lease = got.ok ? got.value : undefined;
      }
      logger?.warn(`leaderElection: ${identity} could not release the lease`);
    } finally {
      timeout.unsubscribe();
    }
  }
}
