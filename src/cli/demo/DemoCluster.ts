import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { keepOnExit, removeOnExit } from './removeOnExit.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { FakeKubeApiServer } from '../../testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { ClusterSimulator, type SimulatorOptions } from './ClusterSimulator.js';
import { demoDeploymentController } from './demoDeploymentController.js';

/** Options of {@link DemoCluster.start}. */
export interface DemoClusterOptions extends SimulatorOptions {
  /** How often the simulation steps, in ms (default 250: a few changes per second). */
  tickMs?: number;
  /** How often a fault is injected, in ms (default 25 000; 0: never). */
  faultEveryMs?: number;
  /** Told about each fault injected, so the CLI can say what the dashboard is about to show. */
  onFault?: (description: string) => void;
}

/** The faults the demo takes turns at, and what each shows off. */
const FAULTS: Array<{ describe: string; inject: (server: FakeKubeApiServer) => Promise<void> }> = [
  {
    describe: 'dropping every connection (the watches resume from their resourceVersion)',
    inject: (server) => server.restart(),
  },
  {
    describe: 'expiring the event history (the watches get 410 Gone and relist)',
    inject: async (server) => server.expireHistory(),
  },
  {
    describe:
      'dropping every connection and answering 503 with Retry-After: 2 (the watches back off)',
    inject: async (server) => {
      server.faults.fail(503, {
        times: 2,
        retryAfterSeconds: 2,
        message: 'the demo API server is busy',
      });
      await server.restart();
    },
  },
];

/**
 * A simulated cluster on an embedded {@link FakeKubeApiServer} (127.0.0.1, a free port, TLS with
 * a CA made at start, a random bearer token): a {@link ClusterSimulator} stepping every `tickMs`,
 * its deployment controller (a kube-rx `controller()` watching the server like any client, so
 * `kubectl scale` and `kubectl delete pod` behave as on a real cluster), and every `faultEveryMs` a fault in turn (connections dropped, history expired, 503 with
 * Retry-After), so reconnecting and relisting can be seen. Its kubeconfig is written to
 * `kubeConfigPath` (a private temporary directory, mode 0600, removed by `stop()`), so that
 * `kubectl` can change the cluster while kube-rx shows it. Nothing in it is real; say so to the
 * user.
 *
 * @example
 * const demo = await DemoCluster.start();
 * fromWatch(demo.kubeConfig(), pods).subscribe(console.log);
 * // $ KUBECONFIG=<demo.kubeConfigPath> kubectl delete pod <name> -n shop
 * await demo.stop();
 */
export class DemoCluster {
  /** The namespace of the demo's context: the liveliest one (it has the crash-looping pods). */
  static readonly namespace = 'shop';

  private readonly timers: NodeJS.Timeout[] = [];
  private controller?: Subscription;
  private faultIndex = 0;
  private stopped = false;

  private constructor(
    /** The fake API server the simulation runs on. */
    readonly server: FakeKubeApiServer,
    /** The simulation itself. */
    readonly simulator: ClusterSimulator,
    /** The absolute path of the kubeconfig written for the server (gone after `stop()`). */
    readonly kubeConfigPath: string,
  ) {}

  /** Starts the server, seeds the cluster and starts the simulation. */
  static async start(options: DemoClusterOptions = {}): Promise<DemoCluster> {
    // Bookmarks every 5 s, as heartbeats that keep the watches visibly alive; a long history so
    // that a reconnect resumes rather than relists, except when the demo expires it on purpose.
    // TLS, because kubectl sends a bearer token only over HTTPS; a random token, because any
    // process on the machine can reach 127.0.0.1 and the server accepts writes.
    const server = await FakeKubeApiServer.start({
      tls: true,
      token: randomBytes(24).toString('base64url'),
      bookmarkIntervalMs: 5_000,
      historySize: 5_000,
      // It runs for as long as the dashboard does: keep its request records small.
      recordLimit: 1_000,
    });
    let kubeConfigPath: string;
    try {
      kubeConfigPath = await writeDemoKubeConfig(server);
    } catch (error) {
      await server.stop();
      throw error;
    }
    const simulator = new ClusterSimulator(server, options);
    simulator.seed();
    const demo = new DemoCluster(server, simulator, kubeConfigPath);
    // It ends only when stopped (a controller never ends on a watch failure).
    demo.controller = demoDeploymentController(demo.kubeConfig(), simulator).subscribe();
    const tick = setInterval(() => {
      try {
        simulator.tick();
      } catch {
        // A step that trips (say, racing a fault) is skipped: the demo must keep running.
      }
    }, options.tickMs ?? 250);
    demo.timers.push(tick);
    const faultEveryMs = options.faultEveryMs ?? 25_000;
    if (faultEveryMs > 0) {
      demo.timers.push(setInterval(() => void demo.injectFault(options.onFault), faultEveryMs));
    }
    // The simulation alone must never keep a process alive.
    for (const timer of demo.timers) timer.unref();
    return demo;
  }

  /** A KubeConfig pointing at the embedded server (the one written to `kubeConfigPath`). */
  kubeConfig(): KubeConfig {
    return this.server.kubeConfig(KUBECONFIG_OPTIONS);
  }

  /** The embedded server's URL. */
  get url(): string {
    return this.server.url;
  }

  /** Injects the next fault in turn now (the timer does this on its own). */
  async injectFault(onFault?: (description: string) => void): Promise<void> {
    if (this.stopped) return;
    const fault = FAULTS[this.faultIndex++ % FAULTS.length];
    onFault?.(fault.describe);
    try {
      await fault.inject(this.server);
    } catch {
      // A fault racing stop() is harmless: the demo is going away.
    }
  }

  /** Stops the simulation and the server, and removes the kubeconfig with its directory. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.controller?.unsubscribe();
    try {
      await this.server.stop();
    } finally {
      await rm(dirname(this.kubeConfigPath), { recursive: true, force: true });
      keepOnExit(dirname(this.kubeConfigPath));
    }
  }
}

const KUBECONFIG_OPTIONS = { context: 'kube-rx-demo', namespace: DemoCluster.namespace };

/**
 * Writes the server's kubeconfig (it holds the token) into a fresh directory that only this user
 * can enter (mkdtemp makes it 0700; the file is 0600); resolves with the file's absolute path.
 */
async function writeDemoKubeConfig(server: FakeKubeApiServer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kube-rx-demo-'));
  // Removed on any exit, a crash included, unless the orderly stop removed it first.
  removeOnExit(dir);
  try {
    return await server.writeKubeConfig(join(dir, 'kubeconfig'), KUBECONFIG_OPTIONS);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
