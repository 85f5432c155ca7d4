/**
 * Whether this member may start a run now, read on its own clock at the moment a run would
 * start: until `renewDeadlineMs` after the start of its last successful Lease write. The Elector
 * stops the member at that deadline with a timer, but a timer is late by as long as the event
 * loop stalls (a GC pause, a starved CPU), and the timers that come due first after a stall may
 * be the member's own requeues: each would start a run past the deadline, when another process's
 * sharder may already hold the Lease and have moved the key. The fence is checked instead.
 *
 * The deadline counts from when the write was sent: the server applied it later, and a sharder
 * judges the Lease expired only a lease duration after it saw that record, so a member fenced at
 * the deadline is stopped `leaseDurationMs - renewDeadlineMs` before any sharder moves its keys.
 *
 * @example
 * const fence = new MemberFence(() => performance.now(), 10_000);
 * fence.renewed(sentAt); // after a renewal sent at sentAt succeeded
 * fence.holds();         // false once 10 s passed since, whatever the timers did
 */
export class MemberFence {
  private until = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly now: () => number,
    private readonly renewDeadlineMs: number,
  ) {}

  /** A write of the Lease as ours, sent at `sentAt` (on the same clock), succeeded. */
  renewed(sentAt: number): void {
    this.until = Math.max(this.until, sentAt + this.renewDeadlineMs);
  }

  /** A new incarnation starts: nothing it wrote yet. */
  reset(): void {
    this.until = Number.NEGATIVE_INFINITY;
  }

  /** Whether the last successful write is recent enough to act on. */
  holds(): boolean {
    return this.now() < this.until;
  }
}
