import type { FailOptions, FakeServerFaults } from './types.js';
import type { WatchFaultPlan } from './ServedWatch.js';

interface Counted<T> {
  value: T;
  remaining: number;
}

/** An armed `fail()`. */
export interface ArmedFailure {
  status: number;
  retryAfterSeconds?: number;
  reason?: string;
  message?: string;
  match: 'watch' | 'list' | 'any';
  /** Only requests for this path (ending in `/`: any path below it). */
  path?: string;
}

/** What kind of request is asking: a watch, a list/get of a resource, or anything else (logs). */
export type RequestKind = 'watch' | 'list' | 'other';

function times(opts: { times?: number } | undefined): number {
  const n = opts?.times ?? 1;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`times must be a positive integer: ${n}`);
  return n;
}

function nonNegative(name: string, n: number): number {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`${name} must be >= 0: ${n}`);
  return n;
}

function checkedPath(fault: string, path: string): string {
  if (!path.startsWith('/')) throw new RangeError(`${fault}() path must start with /: ${path}`);
  return path;
}

/** No path armed: any; ending in `/`: any path below it; else that path exactly. */
function pathMatches(armed: string | undefined, path: string): boolean {
  return armed === undefined || (armed.endsWith('/') ? path.startsWith(armed) : path === armed);
}

/** Takes one use of the first entry of `queue` (that satisfies `accept`). */
function take<T>(queue: Counted<T>[], accept: (v: T) => boolean = () => true): T | undefined {
  const i = queue.findIndex((c) => accept(c.value));
  if (i < 0) return undefined;
  const entry = queue[i];
  entry.remaining--;
  if (entry.remaining <= 0) queue.splice(i, 1);
  return entry.value;
}

/** The queues of armed faults; each kind is consumed in the order it was armed. */
export class FaultInjector implements FakeServerFaults {
  private drops: Counted<number>[] = [];
  private cuts: Counted<number>[] = [];
  private stalls: Counted<{ ms: number; path?: string }>[] = [];
  private fails: Counted<ArmedFailure>[] = [];
  private delays: Counted<number>[] = [];
  private closes: Counted<true>[] = [];

  dropAfter(events: number, opts?: { times?: number }): void {
    this.drops.push({ value: nonNegative('events', events), remaining: times(opts) });
  }

  cutLine(opts?: { afterEvents?: number }): void {
    this.cuts.push({ value: nonNegative('afterEvents', opts?.afterEvents ?? 0), remaining: 1 });
  }

  stall(ms: number, opts: { path?: string } = {}): void {
    const value: { ms: number; path?: string } = { ms: nonNegative('ms', ms) };
    if (opts.path !== undefined) value.path = checkedPath('stall', opts.path);
    this.stalls.push({ value, remaining: 1 });
  }

  fail(status: number, opts: FailOptions = {}): void {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`fail() needs an HTTP error status (400-599): ${status}`);
    }
    const value: ArmedFailure = { status, match: opts.match ?? 'any' };
    if (opts.retryAfterSeconds !== undefined) value.retryAfterSeconds = opts.retryAfterSeconds;
    if (opts.reason !== undefined) value.reason = opts.reason;
    if (opts.message !== undefined) value.message = opts.message;
    if (opts.path !== undefined) value.path = checkedPath('fail', opts.path);
    this.fails.push({ value, remaining: times(opts) });
  }

  delayHeaders(ms: number, opts?: { times?: number }): void {
    this.delays.push({ value: nonNegative('ms', ms), remaining: times(opts) });
  }

  closeImmediately(opts?: { times?: number }): void {
    this.closes.push({ value: true, remaining: times(opts) });
  }

  reset(): void {
    this.drops = [];
    this.cuts = [];
    this.stalls = [];
    this.fails = [];
    this.delays = [];
    this.closes = [];
  }

  /** The delay armed for the next request (any kind), if any. */
  takeDelay(): number | undefined {
    return take(this.delays);
  }

  /** The failure armed for a request of `kind`, if any. */
  takeFailure(kind: RequestKind, path: string): ArmedFailure | undefined {
    return take(
      this.fails,
      (f) => (f.match === 'any' || f.match === kind) && pathMatches(f.path, path),
    );
  }

  /** The faults of the next watch connection that streams (on `path`). */
  takeWatchPlan(path = ''): WatchFaultPlan {
    const plan: WatchFaultPlan = {};
    const drop = take(this.drops);
    const cut = take(this.cuts);
    const stall = take(this.stalls, (s) => pathMatches(s.path, path))?.ms;
    if (drop !== undefined) plan.dropAfter = drop;
    if (cut !== undefined) plan.cutAfter = cut;
    if (stall !== undefined) plan.stallMs = stall;
    if (take(this.closes)) plan.closeImmediately = true;
    return plan;
  }
}
