import type { SchedulerLike, Subscription } from 'rxjs';

/**
 * The one reference count with linger of `createInformers`: it counts holders, and `linger` ms
 * after the last one left it calls `onIdle` (at once when `linger` is 0), unless a holder came
 * back meanwhile. A holder that itself lingered (a shared store) says when its own last user
 * left, so the two lingers do not add up.
 *
 * ```
 * holders:  1--2--1--0 .......... (t + linger) onIdle
 * holders:  1--0 ....1 (back within linger: no onIdle)
 * ```
 *
 * @example
 * const count = new LingeringCount(10_000, asyncScheduler, () => connection.unsubscribe());
 * count.hold();
 * count.release(); // connection.unsubscribe() 10 s later, unless held again
 */
export class LingeringCount {
  private holders = 0;
  /** The latest time (scheduler time) a holder asked to stay until. */
  private until = -Infinity;
  private timer: Subscription | undefined;
  private stopped = false;

  constructor(
    private readonly linger: number,
    private readonly scheduler: SchedulerLike,
    private readonly onIdle: () => void,
  ) {}

  hold(): void {
    this.holders++;
    this.timer?.unsubscribe();
    this.timer = undefined;
  }

  /** One holder leaves; its users left at `leftAt` (scheduler time; now by default). */
  release(leftAt = this.scheduler.now()): void {
    this.until = Math.max(this.until, leftAt + this.linger);
    if (--this.holders > 0 || this.stopped) return;
    const wait = this.until - this.scheduler.now();
    if (wait <= 0) this.idle();
    else this.timer = this.scheduler.schedule(() => this.idle(), wait);
  }

  /** Nothing more happens (what it counted was closed another way). */
  stop(): void {
    this.stopped = true;
    this.timer?.unsubscribe();
    this.timer = undefined;
  }

  private idle(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onIdle();
  }
}
