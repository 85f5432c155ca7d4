import type { SchedulerLike, Subscriber, Subscription } from 'rxjs';
import type { Action } from '../Action.js';
import type { Reconcile } from '../ReconcileQueueConfig.js';
import type { QueueState, ReconcileReport } from '../ReconcileReport.js';
import { KeyHeap } from './KeyHeap.js';
import { HELD, IDLE, KeyState, READY, RUNNING, WAITING } from './KeyState.js';
import { afterFailure, afterSuccess, type RetrySettings } from './Outcome.js';
import { Run, type RunOwner } from './Run.js';
import type { RunGate } from './RunGate.js';
import type { TokenBucket } from './TokenBucket.js';

/** `reconcileQueue`'s configuration with every default filled in. */
export interface LoopSettings extends RetrySettings {
  concurrency: number;
  bucket: TokenBucket | undefined;
  debounceMs: number;
  drainTimeoutMs: number;
  onQueue: ((state: QueueState) => void) | undefined;
  scheduler: SchedulerLike;
  /** Holds ready keys back before they start (the controller's read-your-own-writes). */
  gate?: RunGate | undefined;
  /** Cheap runs that must not wait behind the others (see {@link ExpressLane}). */
  express?: ExpressLane | undefined;
}

/**
 * Keys whose run would start now is a cheap one that must not wait (a sharded member's release
 * of a drained key, or a run that starts nothing): such a run starts as soon as its key is
 * ready, outside `concurrency` and the token bucket, at most `concurrency` of them at once (its
 * own), oldest first, still never beside another run of its key. The gate does not hold it
 * (such a run reads no store read-your-own-writes waits on), and a key already waiting for a
 * worker or for its gate moves to the lane when a trigger finds it express.
 */
export interface ExpressLane {
  test(key: string): boolean;
  concurrency: number;
}

/** A timer delay past this would overflow Node's timers (they would fire at once). */
const MAX_TIMER_DELAY = 2 ** 31 - 1;
/** Idle slots kept for keys likely to come back before the Map is rebuilt without them. */
const KEEP_IDLE = 4096;

/**
 * The state machine behind one subscription of `reconcileQueue`: one slot per key in a Map, a
 * heap of ready keys (oldest first), a heap of keys waiting for a time, and a single scheduler
 * action for the earliest of those times (or the token bucket's next token). A ready key its
 * `gate` blocks leaves the ready heap (HELD) until the gate names it again.
 *
 * Slots are never deleted from the Map one by one: V8 keeps the hash tables a delete-then-add
 * Map replaces in old space, and what they reference gets promoted (DESIGN, Known traps). A slot
 * that goes idle stays; the Map is dropped whole once every slot is idle, or rebuilt once idle
 * slots outnumber the others. Dropped means a new `Map`, never `clear()`: a cleared Map keeps
 * its old table, and what that table references, as the deleting one would (the promotion
 * spec's queue case catches it).
 */
export class ReconcileLoop implements RunOwner {
  private states = new Map<string, KeyState>();
  private idle = 0;
  private readonly ready = new KeyHeap();
  private readonly timers = new KeyHeap();
  private running = 0;
  /** Runs started by `express`: they count in `running`, not against `concurrency`. */
  private expressRunning = 0;
  /** Ready keys `express` let through, from `expressHead` on: started by the pumps. */
  private expressReady: KeyState[] = [];
  private expressHead = 0;
  /** Ready keys the gate holds back. */
  private held = 0;
  private adds = 0;
  private seq = 0;
  private readonly t0: number;
  private timer: Subscription | undefined;
  private timerAt = -1;
  private drainTimer: Subscription | undefined;
  private pumping = false;
  private inputDone = false;
  private stopping = false;
  private closed = false;

  constructor(
    private readonly reconcile: Reconcile,
    private readonly settings: LoopSettings,
    private readonly out: Subscriber<ReconcileReport>,
  ) {
    this.t0 = settings.scheduler.now();
    settings.gate?.listen((key) => this.opened(key));
  }

  /** The queue's clock: whole milliseconds since it started. */
  now(): number {
    return Math.floor(this.settings.scheduler.now() - this.t0);
  }

  trigger(key: string): void {
    if (this.stopping || this.closed) return;
    this.adds++;
    let state = this.states.get(key);
    if (state === undefined) {
      state = new KeyState(key);
      this.states.set(key, state);
    } else if (state.phase === IDLE) {
      this.idle--;
    }
    if (state.phase === RUNNING) state.dirty = true;
    else if (state.phase !== READY && state.phase !== HELD) this.triggered(state, this.now());
    else this.promote(state);
    this.changed();
    this.pump();
    this.arm();
  }

  /** The input completed: the output completes once nothing is ready, running or waiting. */
  inputComplete(): void {
    this.inputDone = true;
    this.completeIfDone();
  }

  /** A graceful stop: nothing new starts, runs in flight get `drainTimeoutMs` to finish. */
  stop(): void {
    if (this.stopping || this.closed) return;
    this.stopping = true;
    this.cancelTimer();
    this.ready.clear();
    this.timers.clear();
    this.expressReady = [];
    this.expressHead = 0;
    this.held = 0;
    this.changed();
    if (this.running === 0) {
      this.out.complete();
      return;
    }
    this.drainTimer = this.settings.scheduler.schedule(() => {
      this.drainTimer = undefined;
      this.out.complete();
    }, this.settings.drainTimeoutMs);
  }

  /** Unsubscribed, completed or errored: aborts every run in flight and drops the queue. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cancelTimer();
    this.drainTimer?.unsubscribe();
    this.drainTimer = undefined;
    const states = this.states;
    this.states = new Map();
    this.ready.clear();
    this.timers.clear();
    this.expressReady = [];
    this.expressHead = 0;
    if (this.running > 0) {
      for (const state of states.values()) state.run?.cancel();
    }
  }

  /** Called by a run when its reconcile settled (once). */
  finish(run: Run, failed: boolean, error: unknown, value: Action | void): void {
    if (this.closed) return;
    const state = run.state;
    state.run = null;
    this.running--;
    if (state.express) {
      state.express = false;
      this.expressRunning--;
    }
    const now = this.now();
    const { outcome, next } = failed
      ? afterFailure(state, run.startedAt, now, this.settings)
      : afterSuccess(state, value, now);
    state.scheduledAt = next;
    state.phase = IDLE;
    if (!this.stopping) {
      if (state.dirty) {
        state.dirty = false;
        this.triggered(state, now);
      } else if (next >= 0) {
        if (next <= now) this.makeReady(state, next);
        else this.wait(state, next);
      } else {
        this.idled();
      }
    }
    const report: ReconcileReport = {
      key: state.key,
      outcome,
      attempt: run.attempt,
      queuedMs: run.queuedMs,
      durationMs: now - run.startedAt,
    };
    if (failed) report.error = error;
    if (next >= 0) report.nextRunInMs = next - now;
    if (run.staleRead) report.staleRead = true;
    this.changed();
    this.out.next(report);
    if (this.stopping) {
      if (this.running === 0 && !this.closed) this.out.complete();
      return;
    }
    this.pump();
    this.arm();
    this.completeIfDone();
  }

  /** A trigger for an idle or waiting key (or one that ran while triggered). */
  private triggered(state: KeyState, now: number): void {
    const { debounceMs } = this.settings;
    if (debounceMs <= 0) {
      if (state.phase === WAITING) this.timers.remove(state);
      this.makeReady(state, now);
      return;
    }
    const quiet = now + debounceMs;
    this.wait(state, state.scheduledAt >= 0 ? Math.min(state.scheduledAt, quiet) : quiet);
  }

  private makeReady(state: KeyState, at: number): void {
    state.phase = READY;
    state.at = at;
    state.seq = this.seq++;
    state.scheduledAt = -1;
    // Started by the pump that follows every call of this (never from here: a run's begin
    // calls the reconcile at once, and this may be inside `finish`).
    if (this.settings.express?.test(state.key)) this.expressReady.push(state);
    else this.ready.push(state);
  }

  /**
   * A trigger of a key already waiting to start, in the ready heap or held by its gate: if its
   * run has become a cheap one (a drain mark came: the run is now a release), it moves to the
   * express lane. Left where it was, it would wait for a worker behind slow reconciles and the
   * token bucket, or for its gate (until `expectationTimeoutMs` when a store never shows a
   * write), though its run no longer needs either.
   */
  private promote(state: KeyState): void {
    const { express } = this.settings;
    if (express === undefined || !express.test(state.key)) return;
    if (state.phase === HELD) {
      this.held--;
      state.phase = READY;
    } else if (state.index >= 0) {
      this.ready.remove(state);
    } else {
      return; // in the express lane already
    }
    this.expressReady.push(state);
  }

  private wait(state: KeyState, at: number): void {
    state.at = at;
    if (state.phase === WAITING) {
      this.timers.update(state);
      return;
    }
    state.phase = WAITING;
    state.seq = this.seq++;
    this.timers.push(state);
  }

  private idled(): void {
    this.idle++;
    if (this.idle === this.states.size) {
      this.states = new Map();
      this.idle = 0;
    } else if (this.idle > KEEP_IDLE && this.idle * 2 > this.states.size) {
      const kept = new Map<string, KeyState>();
      for (const [key, state] of this.states) if (state.phase !== IDLE) kept.set(key, state);
      this.states = kept;
      this.idle = 0;
    }
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      const { concurrency, bucket, gate } = this.settings;
      this.startExpress();
      while (
        !this.stopping &&
        !this.closed &&
        this.running - this.expressRunning < concurrency &&
        this.ready.size > 0
      ) {
        // Asked before a token is taken: a held key costs no token and no worker.
        if (gate !== undefined && gate.blocked((this.ready.peek() as KeyState).key)) {
          (this.ready.pop() as KeyState).phase = HELD;
          this.held++;
          this.changed();
          continue;
        }
        const now = this.now();
        if (bucket !== undefined && !bucket.take(now)) break;
        this.start(this.ready.pop() as KeyState, now);
      }
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Starts the keys `express` let through, as its lane has room, asking it again (a key no
   * longer cheap takes its place among the ready keys). The gate is not asked.
   */
  private startExpress(): void {
    const { express } = this.settings;
    if (express === undefined) return;
    const lane = this.expressReady;
    while (
      this.expressHead < lane.length &&
      this.expressRunning < express.concurrency &&
      !this.stopping &&
      !this.closed
    ) {
      const state = lane[this.expressHead++]!;
      if (state.phase !== READY || state.index >= 0) continue;
      // Not asked of the gate: a run that starts no reconcile reads nothing it protects.
      if (express.test(state.key)) {
        state.express = true;
        this.expressRunning++;
        this.start(state, this.now());
      } else {
        this.ready.push(state);
      }
    }
    if (this.expressHead === lane.length) {
      this.expressReady = [];
      this.expressHead = 0;
    } else if (this.expressHead > 1024 && this.expressHead * 2 > lane.length) {
      this.expressReady = lane.slice(this.expressHead);
      this.expressHead = 0;
    }
  }

  private start(state: KeyState, now: number): void {
    state.phase = RUNNING;
    this.running++;
    const run = new Run(this, state, state.failures + 1, now, now - state.at);
    if (this.settings.gate?.takeStale(state.key)) run.staleRead = true;
    state.run = run;
    this.changed();
    run.begin(this.reconcile);
  }

  /** The gate of `key` opened: a held key is ready again, in the place it had. */
  private opened(key: string): void {
    if (this.closed || this.stopping) return;
    const state = this.states.get(key);
    if (state === undefined || state.phase !== HELD) return;
    this.held--;
    state.phase = READY;
    if (this.settings.express?.test(key)) this.expressReady.push(state);
    else this.ready.push(state);
    this.changed();
    this.pump();
    this.arm();
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerAt = -1;
    const now = this.now();
    const timers = this.timers;
    let top = timers.peek();
    while (top !== undefined && top.at <= now) {
      timers.pop();
      this.makeReady(top, top.at);
      top = timers.peek();
    }
    this.changed();
    this.pump();
    this.arm();
  }

  /** One scheduler action, for the earliest time anything waits for. */
  private arm(): void {
    if (this.closed || this.stopping) return;
    let want = this.timers.size > 0 ? (this.timers.peek() as KeyState).at : -1;
    const { bucket, concurrency } = this.settings;
    if (
      bucket !== undefined &&
      this.ready.size > 0 &&
      this.running - this.expressRunning < concurrency
    ) {
      const next = bucket.nextAt(this.now());
      if (want < 0 || next < want) want = next;
    }
    if (want < 0) {
      this.cancelTimer();
      return;
    }
    // An earlier timer already armed fires, finds nothing due yet, and arms again.
    if (this.timer !== undefined && this.timerAt <= want) return;
    this.cancelTimer();
    this.timerAt = want;
    const delay = Math.min(MAX_TIMER_DELAY, Math.max(0, want - this.now()));
    this.timer = this.settings.scheduler.schedule(() => this.onTimer(), delay);
  }

  private cancelTimer(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.timerAt = -1;
  }

  private completeIfDone(): void {
    if (!this.inputDone || this.closed || this.stopping) return;
    if (
      this.running === 0 &&
      this.ready.size === 0 &&
      this.expressHead === this.expressReady.length &&
      this.timers.size === 0 &&
      this.held === 0
    )
      this.out.complete();
  }

  private changed(): void {
    const { onQueue } = this.settings;
    if (onQueue === undefined) return;
    onQueue({
      depth: this.ready.size + this.expressReady.length - this.expressHead,
      running: this.running,
      waiting: this.timers.size + this.held,
      adds: this.adds,
    });
  }
}
