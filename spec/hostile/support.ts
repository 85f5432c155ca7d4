import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { buildKubeConfig } from '../../src/testing/fakeKubeApiServer/kubeConfig.js';
import type { Cluster, WatchEvent, WatchOptions } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { RawServer } from '../support/rawServer.js';
import { until } from '../support/wait.js';

export { pods };
export const MB = 1024 * 1024;

/** `ADDED`, `ERROR:SYSTEM_ERROR:502`...: what a run yielded, comparable at a glance. */
export const types = (events: WatchEvent[]): string[] =>
  events.map((e) => (e.type === 'ERROR' ? `ERROR:${e.error.errorType}` : e.type));

/**
 * The hooks of a hostile spec file, inside its `describe`: one RawServer for the file, and after
 * each case no socket left open. Returns the server's getter. (An unhandled rejection or uncaught
 * exception fails the running case by itself: jest reports it.)
 */
export function useRawServer(socketWaitMs = 2000): () => RawServer {
  let raw: RawServer | undefined;
  beforeAll(async () => {
    raw = await RawServer.start();
  });
  afterEach(async () => {
    await raw!.waitForNoSockets(socketWaitMs);
  });
  afterAll(() => raw!.stop());
  return () => raw!;
}

/** What one hostile case did to the two ways of watching, and to the process meanwhile. */
export interface HostileRun {
  generator: WatchEvent[];
  observable: WatchEvent[];
  /** A path that had not ended after `timeoutMs` (and was aborted). */
  timedOut: string[];
  /**
   * The worst lateness of a 10 ms timer while the stream was hostile, counting only the time the
   * process was busy (CPU it used meanwhile), not time the machine did not schedule it.
   */
  maxLagMs: number;
  /** Peak growth over the starting point, in bytes (the worst path; each starts after a full GC). */
  arrayBuffersGrowth: number;
  rssGrowth: number;
  warnings: string[];
}

export interface HostileOptions extends WatchOptions {
  /** Give up (and abort) after this long (default 10 s). */
  timeoutMs?: number;
  /** Which of the two ways to run (default both, one after the other). */
  paths?: Array<'generator' | 'observable'>;
  /** Called once a path has started, e.g. to abort or unsubscribe from outside. */
  during?: (stop: () => void) => void;
}

// The memory bounds are about what one watch holds, so each path starts after a full collection:
// what an earlier path (or spec) left for the collector is not counted against it.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

type ProbeResult = Pick<HostileRun, 'maxLagMs' | 'arrayBuffersGrowth' | 'rssGrowth'>;

/** Samples event-loop lateness and memory every 10 ms until stopped, after a full collection. */
function probe() {
  collectGarbage();
  const start = process.memoryUsage();
  let maxLagMs = 0;
  let arrayBuffers = start.arrayBuffers;
  let rss = start.rss;
  let expected = Date.now() + 10;
  let cpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = Date.now();
    // Lateness the process caused itself: a tick late by 1 s while the process got 20 ms of CPU
    // was a machine too busy to schedule it (a loaded CI runner), not a loop that blocked.
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    maxLagMs = Math.max(maxLagMs, Math.min(now - expected, (used.user + used.system) / 1000));
    expected = now + 10;
    const m = process.memoryUsage();
    arrayBuffers = Math.max(arrayBuffers, m.arrayBuffers);
    rss = Math.max(rss, m.rss);
  }, 10);
  return (): ProbeResult => {
    clearInterval(timer);
    const m = process.memoryUsage();
    return {
      maxLagMs,
      arrayBuffersGrowth: Math.max(arrayBuffers, m.arrayBuffers) - start.arrayBuffers,
      rssGrowth: Math.max(rss, m.rss) - start.rss,
    };
  };
}

/** Runs a watch through `watchResource` and through `fromWatch`, watching the process meanwhile. */
export async function runHostile(
  cluster: Cluster,
  options: HostileOptions = {},
): Promise<HostileRun> {
  const { timeoutMs = 10_000, paths = ['generator', 'observable'], during, ...watch } = options;
  const warnings: string[] = [];
  const watchOptions: WatchOptions = {
    ...watch,
    logger: watch.logger ?? { warn: (message) => warnings.push(message) },
  };
  const timedOut: string[] = [];
  const measures: ProbeResult[] = [];
  const run: Pick<HostileRun, 'generator' | 'observable'> = { generator: [], observable: [] };
  if (paths.includes('generator')) {
    const stopProbe = probe();
    const controller = new AbortController();
    const timer = setTimeout(() => {
      timedOut.push('generator');
      controller.abort();
    }, timeoutMs);
    during?.(() => controller.abort());
    for await (const event of watchResource(cluster, pods, {
      ...watchOptions,
      signal: controller.signal,
    })) {
      run.generator.push(event);
    }
    clearTimeout(timer);
    measures.push(stopProbe());
  }
  if (paths.includes('observable')) {
    const stopProbe = probe();
    await new Promise<void>((resolve, reject) => {
      const subscription = fromWatch(cluster, pods, watchOptions).subscribe({
        next: (event) => run.observable.push(event),
        error: reject,
        complete: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      const stop = () => {
        subscription.unsubscribe();
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        timedOut.push('observable');
        stop();
      }, timeoutMs);
      during?.(stop);
    });
    measures.push(stopProbe());
  }
  const worst = (key: keyof ProbeResult) => Math.max(...measures.map((m) => m[key]));
  return {
    ...run,
    maxLagMs: worst('maxLagMs'),
    arrayBuffersGrowth: worst('arrayBuffersGrowth'),
    rssGrowth: worst('rssGrowth'),
    timedOut,
    warnings,
  };
}

/** Bounds every hostile case must respect. */
export interface CleanBounds {
  arrayBuffers?: number;
  rss?: number;
  lagMs?: number;
}

/**
 * Both paths yielded exactly `expected` (see {@link types}), neither hung, memory stayed within
 * bounds and a 10 ms timer was never late by more than `lagMs`.
 */
export function expectClean(
  run: HostileRun,
  expected: string[],
  { arrayBuffers = 32 * MB, rss = 160 * MB, lagMs = 750 }: CleanBounds = {},
): void {
  expect(run.timedOut).toEqual([]);
  expect(types(run.generator)).toEqual(expected);
  expect(types(run.observable)).toEqual(expected);
  expect(run.arrayBuffersGrowth).toBeLessThan(arrayBuffers);
  expect(run.rssGrowth).toBeLessThan(rss);
  expect(run.maxLagMs).toBeLessThan(lagMs);
}

/** The error of the last event of a run (which must be an ERROR). */
export function lastError(events: WatchEvent[]) {
  const last = events[events.length - 1];
  if (last?.type !== 'ERROR') throw new Error(`expected an ERROR last, got ${types(events)}`);
  return last.error;
}

/** A KubeConfig for a plain-HTTP test server with a bearer token (the test kit's own builder). */
export function kubeConfigFor(url: string, token = 'hostile-token'): KubeConfig {
  return buildKubeConfig(url, undefined, token, {});
}

/**
 * A TCP server on 127.0.0.1 that speaks no HTTP unless the test writes it: for answers an HTTP
 * server library would refuse to give (endless headers, resets, silence). Tracks its sockets.
 */
export class TcpServer {
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;
  connections = 0;

  private constructor(onConnection: (socket: net.Socket) => void) {
    this.server = net.createServer((socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.once('close', () => this.sockets.delete(socket));
      onConnection(socket);
    });
  }

  static async start(onConnection: (socket: net.Socket) => void): Promise<TcpServer> {
    const tcp = new TcpServer(onConnection);
    await new Promise<void>((resolve) => tcp.server.listen(0, '127.0.0.1', resolve));
    return tcp;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  kubeConfig(): KubeConfig {
    return kubeConfigFor(this.url);
  }

  waitForNoSockets(timeoutMs = 2000): Promise<void> {
    return until(
      () => this.sockets.size === 0,
      () => `${this.sockets.size} open socket(s) to close`,
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Once the request head has arrived on `socket`, calls `then` (HTTP request bytes are ignored). */
export function afterRequest(socket: net.Socket, then: () => void): void {
  let head = '';
  const onData = (chunk: Buffer) => {
    head += chunk.toString('latin1');
    if (head.includes('\r\n\r\n')) {
      socket.off('data', onData);
      then();
    }
  };
  socket.on('data', onData);
}

/** Writes `block` to a writable until `stop()` says so or it is destroyed, honouring backpressure. */
export function pump(
  stream: NodeJS.WritableStream & { destroyed: boolean },
  block: Buffer | string,
  { limitBytes = Infinity, onDone = () => {} }: { limitBytes?: number; onDone?: () => void } = {},
): void {
  let sent = 0;
  const size = typeof block === 'string' ? Buffer.byteLength(block) : block.length;
  const next = () => {
    while (!stream.destroyed && sent < limitBytes) {
      sent += size;
      if (!stream.write(block)) {
        stream.once('drain', next);
        return;
      }
    }
    if (!stream.destroyed) onDone();
  };
  next();
}
