import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { tempDir } from '../../support/tempDirs.js';

/** How a finished command ended. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * An environment with no kubeconfig of the machine's: a fresh empty HOME (and TMPDIR), no
 * KUBECONFIG, and `extra` on top. The real user's cluster must never leak into a spec. The
 * spec file removes it with `removeTempDirs()` (spec/support/tempDirs.ts) once its processes end.
 */
export function isolatedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = tempDir('home');
  // TMPDIR too: the demo cluster's kubeconfig directory of a process a spec kills (SIGKILL,
  // no cleanup) stays inside this one rather than in /tmp.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home, ...extra };
}

/** Writes `kubeConfig` to a temporary file and returns its path (see {@link isolatedEnv}). */
export function writeKubeConfig(kubeConfig: KubeConfig): string {
  const file = join(tempDir('kc'), 'config');
  writeFileSync(file, kubeConfig.exportConfig());
  return file;
}

/**
 * The `kube-rx` binary running in a child process, with its output collected line by line and
 * ways to wait for a line.
 *
 * @example
 * const cli = CliProcess.start(main, ['watch', 'pods'], env);
 * await cli.waitForStdout(/web-1/);
 * cli.interrupt();
 * expect((await cli.exited).code).toBe(0);
 */
export class CliProcess {
  readonly stdoutLines: string[] = [];
  readonly stderrLines: string[] = [];
  /** Settles when the process has exited. */
  readonly exited: Promise<CliResult>;
  private readonly waiters = new Set<() => void>();
  private readonly child: ChildProcess;
  /** Exited and every byte of its output read. */
  private closed = false;

  private constructor(main: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [main, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (stream: NodeJS.ReadableStream, lines: string[]) => {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        lines.push(...parts);
        for (const wake of this.waiters) wake();
      });
      stream.on('end', () => {
        if (partial) lines.push(partial);
        for (const wake of this.waiters) wake();
      });
    };
    collect(this.child.stdout!, this.stdoutLines);
    collect(this.child.stderr!, this.stderrLines);
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.closed = true;
        for (const wake of this.waiters) wake();
        resolve({
          code,
          signal,
          stdout: this.stdoutLines.join('\n'),
          stderr: this.stderrLines.join('\n'),
        });
      });
    });
  }

  /** Starts `node main args...` with `env`. */
  static start(main: string, args: string[], env: NodeJS.ProcessEnv): CliProcess {
    return new CliProcess(main, args, env);
  }

  /** Runs to the end (killed after `timeoutMs`) and returns how it ended. */
  static async run(
    main: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    timeoutMs = 30_000,
  ): Promise<CliResult> {
    const cli = new CliProcess(main, args, env);
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), timeoutMs);
    try {
      return await cli.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves with the first stdout line matching `pattern` (seen before or later). */
  waitForStdout(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    return this.waitFor(this.stdoutLines, pattern, timeoutMs, 'stdout');
  }

  /** Resolves with the first stderr line matching `pattern` (seen before or later). */
  waitForStderr(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    return this.waitFor(this.stderrLines, pattern, timeoutMs, 'stderr');
  }

  /** Sends SIGINT, as Ctrl-C does. */
  interrupt(): void {
    this.child.kill('SIGINT');
  }

  /** Sends `signal` (SIGTERM, SIGHUP...), as a service manager or a closed terminal does. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Kills the process if it still runs (for afterEach). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private waitFor(
    lines: string[],
    pattern: RegExp,
    timeoutMs: number,
    name: string,
  ): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const line = lines.find((l) => pattern.test(l));
        if (line !== undefined) {
          done();
          resolve(line);
        } else if (this.closed) {
          done();
          reject(
            new Error(
              `exited before ${name} matched ${pattern}\nstdout:\n${this.stdoutLines.join('\n')}\nstderr:\n${this.stderrLines.join('\n')}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `no ${name} line matched ${pattern} within ${timeoutMs} ms\nstdout:\n${this.stdoutLines.join('\n')}\nstderr:\n${this.stderrLines.join('\n')}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }
}

/**
 * The processes one spec file starts, so that its afterEach kills whatever is still running
 * and waits for each to exit (a process left behind would outlive the spec file).
 *
 * @example
 * const clis = new CliProcesses();
 * afterEach(() => clis.killAll());
 * const cli = clis.start(main, ['watch', 'pods'], env);
 */
export class CliProcesses {
  private readonly running: CliProcess[] = [];

  /** Starts `node main args...` with `env` and keeps it for {@link killAll}. */
  start(main: string, args: string[], env: NodeJS.ProcessEnv): CliProcess {
    return this.keep(CliProcess.start(main, args, env));
  }

  /** Keeps a process started elsewhere for {@link killAll}. */
  keep(cli: CliProcess): CliProcess {
    this.running.push(cli);
    return cli;
  }

  /** Kills every process kept so far that still runs, and resolves once all have exited. */
  async killAll(): Promise<void> {
    const stopping = this.running.splice(0);
    for (const cli of stopping) cli.kill();
    await Promise.all(stopping.map((cli) => cli.exited));
  }
}
