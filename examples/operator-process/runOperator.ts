/**
 * What an operator's process wraps around its controller, the same in every example operator:
 * leader election (or none), the probe server with `/healthz` and `/metrics`, the controller's
 * metrics, a log line per run that did something, and the graceful end: on `signal` no new run
 * starts, runs in flight finish, the Lease is released, then `done` resolves.
 *
 * In your project, import from 'kube-rx' instead of '../../src/index.js'.
 */
import type { RequestListener } from 'node:http';
import {
  BehaviorSubject,
  filter,
  identity,
  lastValueFrom,
  merge,
  Subject,
  switchMap,
  takeUntil,
  tap,
  type Observable,
} from 'rxjs';
import type { Registry } from 'prom-client';
import {
  leaderElection,
  whileLeader,
  type Cluster,
  type LeaderElectionConfig,
  type ReconcileReport,
} from '../../src/index.js';
import { controllerMetrics, type ControllerMetrics } from '../../src/metrics.js';
import { aborted } from '../resilient-watch.js';
import { startProbeServer } from './probes.js';

/** What the process hands the controller: wire each into `controller({ ... })`. */
export interface OperatorHooks {
  /** The graceful stop: `controller({ stop })`. */
  stop: Observable<unknown>;
  /** `controller({ onSynced })`: readiness turns 200 from here on. */
  onSynced: () => void;
  /** The metrics' hooks (`onQueue`, `onLifecycle`), when a registry was given. */
  metrics: ControllerMetrics | undefined;
}

/** Options of {@link runOperator}. */
export interface OperatorProcessConfig {
  /** The controller's name: the `controller` label of its metrics. */
  name: string;
  /** The controller (its reports), built with the hooks the process hands it. */
  reports: (hooks: OperatorHooks) => Observable<ReconcileReport>;
  /** Stops the operator gracefully when it aborts. */
  signal?: AbortSignal | undefined;
  /** Where lines go (default console.log). */
  log?: ((line: string) => void) | undefined;
  /** The line logged once the controller's stores are synced. */
  syncedLine: string;
  /** A line for a run worth a line (default {@link describeReport}); undefined: none. */
  describe?: ((report: ReconcileReport) => string | undefined) | undefined;
  /** The probe server's address (default 127.0.0.1:8081); `false`: none. */
  health?: { host?: string; port?: number } | false | undefined;
  /** More probe-server routes, beside `/healthz` and `/metrics`. */
  routes?: Record<string, RequestListener> | undefined;
  /** Registers the controller's metrics in it and serves them on `/metrics`. */
  metrics?: Registry | undefined;
  /** The metrics' `member` label (a sharded member's identity). */
  member?: string | undefined;
  /** Acts only while holding this Lease; default: always acts. */
  leaderElection?: LeaderElectionConfig | undefined;
  /** Called once the controller has stopped, before the probe server closes. */
  onEnd?: (() => void) | undefined;
}

/** A running operator. */
export interface RunningOperator {
  /** The probe server's URL, when it has one. */
  healthUrl?: string;
  /** Resolves with the number of runs once the operator stopped (after `signal` aborted). */
  done: Promise<number>;
}

/**
 * Starts the controller `config.reports` builds, with its probe server, metrics and (when
 * `leaderElection` is given) only while this replica leads. A standby answers 200 on
 * `/healthz` (it is ready to take over; a rollout of the operator must not wait for it); the
 * leader answers 503 until its stores are synced. Each time leadership is won the controller
 * starts afresh (its watches too) and syncs again.
 *
 * @example
 * const operator = await runOperator(kc, {
 *   name: 'my-operator',
 *   syncedLine: 'synced',
 *   signal: stop.signal,
 *   reports: ({ stop, onSynced, metrics }) =>
 *     controller({ cluster: kc, for: { resource: configmaps }, reconcile, stop, onSynced,
 *                  onQueue: metrics?.onQueue, onLifecycle: metrics?.onLifecycle }),
 * });
 * console.log(`stopped after ${await operator.done} runs`);
 */
export async function runOperator(
  cluster: Cluster,
  config: OperatorProcessConfig,
): Promise<RunningOperator> {
  const { name, signal, log = console.log, health = {}, metrics: registry, member } = config;
  const { leaderElection: lease, describe = describeReport, onEnd } = config;
  const metrics =
    registry && controllerMetrics(registry, { controller: name, ...(member && { member }) });
  const routes: Record<string, RequestListener> = { ...config.routes };
  if (registry) routes['/metrics'] = metricsRoute(registry);
  let synced = false;
  let announced = false;
  // Whether this replica leads (always, without an election): what readiness and the end read.
  const leadingNow = new BehaviorSubject(lease === undefined);
  const probes =
    health === false
      ? undefined
      : await startProbeServer({ ...health, ready: () => !leadingNow.value || synced, routes });
  // The election ends (releasing the Lease) once the controller has drained after `signal`, or
  // at once when `signal` aborts a standby.
  const drained = new Subject<void>();
  const ended$ = merge(
    drained,
    aborted(signal).pipe(switchMap(() => leadingNow.pipe(filter((now) => !now)))),
  );
  const leading$ = lease
    ? leaderElection(cluster, { logger: { warn: log }, ...lease }).pipe(
        tap((now) => {
          if (now === leadingNow.value && announced) return;
          announced = true;
          log(now ? `leading (${lease.identity})` : 'standing by');
          synced = false;
          leadingNow.next(now);
        }),
        takeUntil(ended$),
      )
    : undefined;
  let runs = 0;
  const reports$ = config
    .reports({
      // Graceful: on abort no new run starts and the runs in flight finish, then it completes.
      stop: aborted(signal),
      onSynced: () => {
        synced = true;
        log(config.syncedLine);
      },
      metrics,
    })
    .pipe(
      tap({ complete: () => drained.next() }),
      leading$ ? whileLeader(leading$) : identity,
      tap((report) => {
        runs++;
        metrics?.observeReport(report);
        const line = describe(report);
        if (line) log(line);
      }),
    );
  const done = lastValueFrom(reports$, { defaultValue: undefined }).finally(async () => {
    onEnd?.();
    await probes?.close();
  });
  return { healthUrl: probes?.url, done: done.then(() => runs) };
}

/** `error shop/web (attempt 2, retry in 200 ms): ...`: a line for a run that failed or gave up. */
export function describeReport(report: ReconcileReport): string | undefined {
  if (report.outcome === 'done' || report.outcome === 'requeue') return undefined;
  const message = report.error instanceof Error ? report.error.message : String(report.error);
  const retry = report.nextRunInMs === undefined ? '' : `, retry in ${report.nextRunInMs} ms`;
  return `${report.outcome} ${report.key} (attempt ${report.attempt}${retry}): ${message.slice(0, 300)}`;
}

/** `/metrics` from a prom-client registry. */
function metricsRoute(registry: Registry): RequestListener {
  return (_request, response) => {
    void registry.metrics().then((text) => {
      response.setHeader('content-type', registry.contentType);
      response.end(text);
    });
  };
}
