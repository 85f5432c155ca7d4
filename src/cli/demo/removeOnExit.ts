import { rmSync } from 'node:fs';

const pending = new Set<string>();
let listening = false;

/**
 * Removes `dir` when the process exits, however it exits: the demo cluster's folder holds a
 * kubeconfig with a bearer token, and a crash (an uncaught error, a second Ctrl-C) skips the
 * orderly stop that removes it. The 'exit' listener can only do synchronous work, hence rmSync.
 * {@link keepOnExit} forgets it once the orderly stop removed it.
 *
 * @example
 * removeOnExit(dir);
 * await rm(dir, { recursive: true, force: true });
 * keepOnExit(dir);
 */
export function removeOnExit(dir: string): void {
  pending.add(dir);
  if (!listening) {
    listening = true;
    process.on('exit', () => {
      for (const each of pending) rmSync(each, { recursive: true, force: true });
    });
  }
}

/** Forgets `dir`: nothing to remove at exit any more. */
export function keepOnExit(dir: string): void {
  pending.delete(dir);
}
