/** The first backoff cap; each consecutive failure doubles it (client-go's Reflector values). */
const INITIAL_DELAY = 800;
/** The largest backoff cap. */
const MAX_DELAY = 30_000;
/** A connection up this long counts as health: the next failure starts the backoff over. */
export const RESET_AFTER = 120_000;
/** A watch that ends sooner than this without an event is a failure, not a server close. */
export const SHORT_WATCH = 1_000;
/**
 * The longest Retry-After honoured: a server (or a proxy) can ask for anything, and a delay past
 * what a timer holds (2^31-1 ms) would fire at once, a tight retry loop.
 */
const MAX_RETRY_AFTER = 600_000;

/**
 * The delay before retry number `attempt` (1-based): full jitter, a uniform draw in
 * [0, min(30 s, 800 ms * 2^(attempt-1))), so clients that failed together do not return together;
 * never shorter than the server's Retry-After (up to 10 minutes).
 *
 * @example
 * backoffDelay(3, () => 0.5); // 1600
 * backoffDelay(1, () => 0.1, 2); // 2000
 */
export function backoffDelay(attempt: number, random: () => number, retryAfterSeconds = 0): number {
  const cap = Math.min(MAX_DELAY, INITIAL_DELAY * 2 ** (attempt - 1));
  const asked =
    Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 0;
  return Math.max(Math.floor(random() * cap), Math.min(asked, MAX_RETRY_AFTER));
}

/**
 * A whole number of seconds in [300, 600], as client-go picks per watch: connections made at the
 * same time end at different times, so their reconnects spread out.
 *
 * @example
 * randomTimeoutSeconds(() => 0); // 300
 */
export function randomTimeoutSeconds(random: () => number): number {
  return 300 + Math.floor(random() * 301);
}
