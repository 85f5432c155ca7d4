// Waiting on real timers, for specs that run against real servers.

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 5 ms; rejects after `timeoutMs` saying what it waited for. */
export async function until(
  check: () => boolean,
  what: string | (() => string),
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
      );
    }
    await sleep(5);
  }
}
