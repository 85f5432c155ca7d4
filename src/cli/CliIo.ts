/** What a command reads and writes: injectable, so commands run in-process in tests. */
export interface CliIo {
  /** Writes to stdout (a whole line or more). */
  out(text: string): void;
  /** Writes a line to stderr. */
  warn(line: string): void;
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM: the command then stops cleanly. */
  signal: AbortSignal;
}

/**
 * Resolves when `signal` aborts (at once if it already has).
 *
 * @example
 * await untilAborted(io.signal);
 */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
