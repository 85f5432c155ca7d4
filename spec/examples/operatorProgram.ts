/**
 * An example operator run as the program it is (`node main.ts` with a kubeconfig in the
 * environment), for the specs that check what a user of it sees: its output, its probe server,
 * its metrics, and a clean exit on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from '../support/wait.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A started operator program. */
export interface OperatorProgram {
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Waits until its output matches, failing with the output after `timeoutMs`. */
  waitFor(pattern: RegExp, what: string, timeoutMs?: number): Promise<void>;
  /** The URL of its probe server, once it printed it. */
  probeUrl(): string | undefined;
  /** Sends SIGTERM; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `main` (a path from the repository root) with `args`, the kubeconfig file `kubeconfig`,
 * its probe server on a free loopback port, and `env` on top.
 *
 * @example
 * const program = operatorProgram('examples/config-reloader/main.ts', ['shop'], kubeconfig);
 * await program.waitFor(/synced:/, 'the reloader to sync');
 * expect(await program.stop()).toBe(0);
 */
export function operatorProgram(
  main: string,
  args: readonly string[],
  kubeconfig: string,
  env: Record<string, string> = {},
): OperatorProgram {
  const child = spawn(process.execPath, ['--import', './bench/register.mjs', main, ...args], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      KUBECONFIG: kubeconfig,
      HEALTH_HOST: '127.0.0.1',
      HEALTH_PORT: '0',
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    output: () => output,
    // Node transpiles the example as it loads: seconds on a busy machine.
    waitFor: (pattern, what, timeoutMs = 60_000) =>
      until(
        () => pattern.test(output),
        () => `${what}: ${output}`,
        timeoutMs,
      ),
    probeUrl: () => output.match(/\/healthz and \/metrics on (http:\/\/127\.0\.0\.1:\d+)/)?.[1],
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
