import type { KubeConfig } from '@kubernetes/client-node';
import { FakeKubeApiServer } from '../../testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { ClusterSimulator, type SimulatorOptions } from './clusterSimulator.js';

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
 * A simulated cluster on an embedded {@link FakeKubeApiServer} (127.0.0.1, a free port): a
 * {@link ClusterSimulator} stepping every `tickMs`, and every `faultEveryMs` a fault in turn
 * (connections dropped, history expired, 503 with Retry-After), so reconnecting and relisting
 * can be seen. Nothing in it is real; say so to the user.
 *
 * @example
 * const demo = await DemoCluster.start();
 * fromWatch(demo.kubeConfig(), pods).subscribe(console.log);
 * await demo.stop();
 */
export class DemoCluster {
  /** The namespace of the demo's context: the liveliest one (it has the crash-looping pods). */
  static readonly namespace = 'shop';

  private readonly timers: NodeJS.Timeout[] = [];
  private faultIndex = 0;
  private stopped = false;

  private constructor(
    /** The fake API server the simulation runs on. */
    readonly server: FakeKubeApiServer,
    /** The simulation itself. */
    readonly simulator: ClusterSimulator,
  ) {}

  /** Starts the server, seeds the cluster and starts the simulation. */
  static async start(options: DemoClusterOptions = {}): Promise<DemoCluster> {
    // Bookmarks every 5 s, as heartbeats that keep the watches visibly alive; a long history so
    // that a reconnect resumes rather than relists, except when the demo expires it on purpose.
    const server = await FakeKubeApiServer.start({
      bookmarkIntervalMs: 5_000,
      historySize: 5_000,
      // It runs for as long as the dashboard does: keep its request records small.
      recordLimit: 1_000,
    });
    const simulator = new ClusterSimulator(server, options);
    simulator.seed();
    const demo = new DemoCluster(server, simulator);
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

  /** A KubeConfig pointing at the embedded server. */
  kubeConfig(): KubeConfig {
    return this.server.kubeConfig({ context: 'kube-rx-demo', namespace: DemoCluster.namespace });
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

  /** Stops the simulation and the server. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.server.stop();
  }
}
