/** Promises that resolve when a condition on the server becomes true, checked on every change. */
export class Waiters {
  private readonly checks = new Set<() => void>();

  /** Re-checks every pending condition. */
  notify(): void {
    for (const check of [...this.checks]) check();
  }

  /** Resolves once `done()` is true; rejects after `timeoutMs` with `what()` in the message. */
  until(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!done()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`FakeKubeApiServer: timed out after ${timeoutMs} ms: ${what()}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.checks.delete(check);
      };
      this.checks.add(check);
    });
  }
}
