import { type MonoTypeOperatorFunction, tap } from 'rxjs';
import type { Registry } from 'prom-client';
import type { QueueState, ReconcileReport } from '../controller/ReconcileReport.js';
import type { LifecycleEvent } from '../operators/resume/LifecycleEvent.js';
import type { ResourceRef } from '../types.js';
import type { EventDropReason } from '../controller/events/EventRecord.js';
import { controllerMetricSet, watchMetricSet } from './metricSets.js';
import { assertObjectArgument } from '../objects/argumentChecks.js';
import { assertLabelValue, assertRegistry } from './checkMetricsArguments.js';
import { resourceLabel } from './resourceLabel.js';
import { WatchLifecycleCounter } from './WatchLifecycleCounter.js';

/** Which controller the metrics are about. */
export interface ControllerMetricsConfig {
  /** The `controller` (and workqueue `name`) label: one fixed value per controller. */
  controller: string;
  /**
   * A sharded controller's identity in its ring (`sharding.identity`): every series then carries
   * it as the `member` label, so the members of a ring scraped into one Prometheus stay apart.
   * Unset (an unsharded controller): no `member` label, the series are controller-runtime's.
   */
  member?: string;
}

/** The hooks of one controller's metrics: give them to its config and pipe its reports. */
export interface ControllerMetrics {
  /** `config.onQueue` of `reconcileQueue` / `controller`: depth, adds, active workers. */
  onQueue: (state: QueueState) => void;
  /** `config.onLifecycle` of `controller`: its watches' reconnects and relists, per resource. */
  onLifecycle: (resource: ResourceRef<any>, event: LifecycleEvent) => void;
  /** Counts one report: results, errors, retries, queue and work durations. */
  observeReport: (report: ReconcileReport) => void;
  /** The same as an operator on the controller's reports. */
  observeReports<R extends ReconcileReport>(): MonoTypeOperatorFunction<R>;
  /** `onDrop` of its `eventRecorder`: counts `kube_rx_events_dropped_total{reason}`. */
  onEventDropped: (reason: EventDropReason) => void;
}

/** controller-runtime's `result` label for each outcome. */
const RESULTS = {
  done: 'success',
  requeue: 'requeue_after',
  error: 'error',
  'gave-up': 'error',
} as const satisfies Record<ReconcileReport['outcome'], string>;

/**
 * A controller's metrics in a prom-client `registry`, under the names controller-runtime uses
 * (so existing dashboards and alerts work): `workqueue_depth`, `workqueue_adds_total`,
 * `workqueue_retries_total`, `workqueue_queue_duration_seconds`,
 * `workqueue_work_duration_seconds` (labels `name` and `controller`, both the controller's
 * name; controller-runtime's buckets, 10 ns to 1 000 s), `controller_runtime_reconcile_total`
 * (`result`: success, error, requeue_after), `controller_runtime_reconcile_errors_total`,
 * `controller_runtime_active_workers`, and its watches' `kube_rx_watch_reconnects_total` and
 * `kube_rx_watch_relists_total` (`controller`, `resource`). The label values are fixed by the
 * config and the resources watched: never a key or an object's name, so the series stay
 * bounded however many objects pass. A sharded controller's series carry its `member` too.
 *
 * ```
 * reports:          -d--e--d--r->      (done, error, done, requeue)
 * observeReports(): -d--e--d--r->      reconcile_total{result="success"} 2, {result="error"} 1,
 *                                      {result="requeue_after"} 1; retries_total 1
 * ```
 *
 * @example
 * import { register } from 'prom-client';
 * import { controllerMetrics } from 'kube-rx/metrics';
 *
 * const metrics = controllerMetrics(register, { controller: 'web' });
 * controller({ cluster: kc, for: { resource: deployments }, reconcile,
 *              onQueue: metrics.onQueue, onLifecycle: metrics.onLifecycle })
 *   .pipe(metrics.observeReports())
 *   .subscribe();
 * // GET /metrics: res.end(await register.metrics())
 */
export function controllerMetrics(
  registry: Registry,
  config: ControllerMetricsConfig,
): ControllerMetrics {
  assertRegistry('controllerMetrics', registry);
  assertObjectArgument('controllerMetrics', 'config', config);
  const { controller, member } = config;
  assertLabelValue('controllerMetrics', 'controller', controller);
  assertLabelValue('controllerMetrics', 'member', member, true);
  // The member label only when sharded: an unsharded controller's series keep their labels.
  const own = member === undefined ? { controller } : { controller, member };
  const set = controllerMetricSet(registry);
  const queueLabels = { name: controller, ...own };
  const depth = set.depth.labels(queueLabels);
  const adds = set.adds.labels(queueLabels);
  const retries = set.retries.labels(queueLabels);
  const queueDuration = set.queueDuration.labels(queueLabels);
  const workDuration = set.workDuration.labels(queueLabels);
  const errors = set.reconcileErrors.labels(own);
  const workers = set.activeWorkers.labels(own);
  const results = {
    success: set.reconciles.labels({ ...own, result: 'success' }),
    error: set.reconciles.labels({ ...own, result: 'error' }),
    requeue_after: set.reconciles.labels({ ...own, result: 'requeue_after' }),
  };
  // Every series exists from the start, at 0, as controller-runtime initialises them.
  depth.set(0);
  workers.set(0);
  for (const counter of [adds, retries, errors, ...Object.values(results)]) counter.inc(0);

  let lastAdds = 0;
  const watchSet = watchMetricSet(registry);
  const watches = new Map<string, WatchLifecycleCounter>();

  const observeReport = (report: ReconcileReport): void => {
    results[RESULTS[report.outcome]].inc();
    if (report.outcome === 'error' || report.outcome === 'gave-up') errors.inc();
    // A failed run goes back with its backoff: client-go's AddRateLimited, a retry.
    if (report.outcome === 'error') retries.inc();
    queueDuration.observe(report.queuedMs / 1000);
    workDuration.observe(report.durationMs / 1000);
  };
  return {
    onQueue: (state) => {
      depth.set(state.depth);
      workers.set(state.running);
      // `adds` counts from the queue's start: a smaller count is a new queue (resubscribed).
      const added = state.adds >= lastAdds ? state.adds - lastAdds : state.adds;
      if (added > 0) adds.inc(added);
      lastAdds = state.adds;
    },
    onLifecycle: (resource, event) => {
      const label = resourceLabel(resource);
      let counter = watches.get(label);
      if (counter === undefined) {
        counter = new WatchLifecycleCounter(watchSet, { ...own, resource: label });
        watches.set(label, counter);
      }
      counter.observe(event);
    },
    observeReport,
    observeReports: <R extends ReconcileReport>() => tap<R>(observeReport),
    onEventDropped: (reason) => set.eventsDropped.labels({ ...own, reason }).inc(),
  };
}
