/**
 * client-go's overall limiter on run starts: `burst` tokens, refilled at `perSecond`. Times are
 * the queue's milliseconds, so virtual time drives it in specs.
 *
 * @example
 * const bucket = new TokenBucket(10, 100, 0);
 * bucket.take(0); // true, 99 left
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  /** Takes a token if one is there. */
  take(now: number): boolean {
    this.refill(now);
    // Float refills can land a hair under a whole token at the exact time it is due.
    if (this.tokens < 1 - 1e-9) return false;
    this.tokens = Math.max(0, this.tokens - 1);
    return true;
  }

  /** When the next token will be there (whole milliseconds, never before `now`). */
  nextAt(now: number): number {
    this.refill(now);
    if (this.tokens >= 1 - 1e-9) return now;
    return now + Math.ceil(((1 - this.tokens) * 1000) / this.perSecond - 1e-9);
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
      this.last = now;
    }
  }
}
