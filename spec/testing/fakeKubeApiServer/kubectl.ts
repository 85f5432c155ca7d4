// Drives the real kubectl binary against a FakeKubeApiServer: a temporary HOME, kubeconfig and
// discovery cache per instance, so nothing of the user's ~/.kube is read or written.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from '@jest/globals';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { until } from '../../support/wait.js';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A running `kubectl ... -w`: its output lines as they come. */
export class KubectlWatch {
  output = '';
  constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (c: string) => (this.output += c));
    child.stderr?.resume();
  }

  get lines(): string[] {
    return this.output.split('\n').filter((l) => l.trim() !== '');
  }

  /** Resolves once some line matches `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs = 15_000): Promise<void> {
    return until(
      () => this.lines.some((l) => pattern.test(l)),
      () => `${pattern} in ${JSON.stringify(this.output)}`,
      timeoutMs,
    );
  }

  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    return exited;
  }
}

export class Kubectl {
  private constructor(
    readonly dir: string,
    readonly kubeconfig: string,
  ) {}

  /** A kubectl whose kubeconfig (written by the server) points at `server`. */
  static async for(server: FakeKubeApiServer): Promise<Kubectl> {
    const dir = await mkdtemp(join(tmpdir(), 'kube-rx-kubectl-'));
    const kubeconfig = await server.writeKubeConfig(join(dir, 'kubeconfig'));
    return new Kubectl(dir, kubeconfig);
  }

  /** A kubectl using a kubeconfig written elsewhere (the demo cluster's); cleanup leaves it. */
  static async withKubeConfig(kubeconfig: string): Promise<Kubectl> {
    const dir = await mkdtemp(join(tmpdir(), 'kube-rx-kubectl-'));
    return new Kubectl(dir, kubeconfig);
  }

  private env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: this.dir, KUBECONFIG: this.kubeconfig };
  }

  private args(args: string[]): string[] {
    return ['--cache-dir', join(this.dir, 'cache'), ...args];
  }

  /** Writes a manifest into the temporary directory; its path. */
  async manifest(name: string, text: string): Promise<string> {
    const path = join(this.dir, name);
    await writeFile(path, text);
    return path;
  }

  /** Runs kubectl to the end (never rejects: the exit code is in the result). */
  run(...args: string[]): Promise<KubectlResult> {
    return new Promise((resolve) => {
      execFile(
        'kubectl',
        this.args(args),
        { env: this.env(), timeout: 60_000 },
        (err, stdout, stderr) => {
          const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  /** Runs kubectl and fails with its stderr unless it exits 0; its stdout. */
  async ok(...args: string[]): Promise<string> {
    const r = await this.run(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  }

  /** Starts a long-running kubectl (`get -w`). */
  watch(...args: string[]): KubectlWatch {
    return new KubectlWatch(
      spawn('kubectl', this.args(args), { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  }

  async cleanup(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A TLS FakeKubeApiServer and a kubectl for it, made before each spec of the calling `describe`
 * and torn down after it (what every kubectl spec needs): read `harness.server` and
 * `harness.kubectl` inside the specs.
 */
export function kubectlHarness(options: { token?: string } = {}): {
  readonly server: FakeKubeApiServer;
  readonly kubectl: Kubectl;
} {
  let server: FakeKubeApiServer | undefined;
  let kubectl: Kubectl | undefined;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start({ tls: true, ...options });
    kubectl = await Kubectl.for(server);
  });
  afterEach(async () => {
    await server?.stop();
    await kubectl?.cleanup();
  });
  return {
    get server() {
      return server!;
    },
    get kubectl() {
      return kubectl!;
    },
  };
}
