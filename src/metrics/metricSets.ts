import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * controller-runtime's workqueue buckets, `prometheus.ExponentialBuckets(10e-9, 10, 12)`: 10 ns
 * to 1 000 s, written out so that the `le` labels are exact.
 */
export const WORKQUEUE_BUCKETS = [
  1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000,
] as const;

/** The metrics of controllers, created once per registry. */
export interface ControllerMetricSet {
  depth: Gauge<QueueLabel>;
  adds: Counter<QueueLabel>;
  retries: Counter<QueueLabel>;
  queueDuration: Histogram<QueueLabel>;
  workDuration: Histogram<QueueLabel>;
  reconciles: Counter<'controller' | 'result' | 'member'>;
  reconcileErrors: Counter<'controller' | 'member'>;
  activeWorkers: Gauge<'controller' | 'member'>;
  eventsDropped: Counter<'controller' | 'reason' | 'member'>;
}

/**
 * The labels of the workqueue series. `member` (a sharded controller's identity in its ring) is
 * declared on every series but set only by sharded controllers: prom-client leaves a label it
 * is not given out of the series, so an unsharded controller's series are what they were.
 */
type QueueLabel = 'name' | 'controller' | 'member';

/** What a watch counts between scrapes: its per-event path touches nothing of prom-client. */
export interface WatchTally {
  labels: { controller?: string; member?: string; resource: string };
  events: number;
  lastEventMs: number | undefined;
}

/**
 * The metrics of watches, created once per registry, and the tallies they read at scrape: one
 * per label set (so as many as there are distinct resources and controllers, never more).
 */
export interface WatchMetricSet {
  events: Counter<'controller' | 'member' | 'resource'>;
  reconnects: Counter<'controller' | 'member' | 'resource'>;
  relists: Counter<'controller' | 'member' | 'resource'>;
  lastEvent: Gauge<'controller' | 'member' | 'resource'>;
  tallies: Map<string, WatchTally>;
}

const controllerSets = new WeakMap<Registry, ControllerMetricSet>();
const watchSets = new WeakMap<Registry, WatchMetricSet>();

/**
 * The controller metrics of `registry`, registered on first use: every controller given the
 * same registry shares them, told apart by their labels.
 *
 * @example
 * const { reconciles } = controllerMetricSet(register);
 * reconciles.labels({ controller: 'web', result: 'success' }).inc();
 */
export function controllerMetricSet(registry: Registry): ControllerMetricSet {
  let set = controllerSets.get(registry);
  if (set !== undefined) return set;
  const registers = [registry];
  const queue = ['name', 'controller', 'member'] as const;
  set = {
    depth: new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: queue,
      registers,
    }),
    adds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: queue,
      registers,
    }),
    retries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: queue,
      registers,
    }),
    queueDuration: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: queue,
      buckets: [...WORKQUEUE_BUCKETS],
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: queue,
      buckets: [...WORKQUEUE_BUCKETS],
      registers,
    }),
    reconciles: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result', 'member'] as const,
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller', 'member'] as const,
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller', 'member'] as const,
      registers,
    }),
    eventsDropped: new Counter({
      name: 'kube_rx_events_dropped_total',
      help: 'Events an eventRecorder did not write, by reason (rate-limited, overflow, write-failed, invalid)',
      labelNames: ['controller', 'reason', 'member'] as const,
      registers,
    }),
  };
  controllerSets.set(registry, set);
  return set;
}

/**
 * The watch metrics of `registry`, registered on first use. Events are tallied by each watch
 * and added to the counter when the registry is scraped (its `collect`), so counting an event
 * costs an increment, not a label lookup.
 *
 * @example
 * const set = watchMetricSet(register);
 * set.reconnects.labels({ resource: 'v1/pods' }).inc();
 */
export function watchMetricSet(registry: Registry): WatchMetricSet {
  let set = watchSets.get(registry);
  if (set !== undefined) return set;
  const registers = [registry];
  const labelNames = ['controller', 'member', 'resource'] as const;
  const tallies = new Map<string, WatchTally>();
  const events = new Counter({
    name: 'kube_rx_watch_events_total',
    help: 'Total number of watch events (ADDED, MODIFIED, DELETED, BOOKMARK) received',
    labelNames,
    registers,
    collect() {
      for (const tally of tallies.values()) {
        if (tally.events > 0) this.labels(tally.labels).inc(tally.events);
        tally.events = 0;
      }
    },
  });
  const lastEvent = new Gauge({
    name: 'kube_rx_watch_last_event_seconds',
    help: 'Unix time in seconds of the last watch event received (bookmarks included)',
    labelNames,
    registers,
    collect() {
      for (const tally of tallies.values()) {
        if (tally.lastEventMs !== undefined) this.set(tally.labels, tally.lastEventMs / 1000);
      }
    },
  });
  set = {
    events,
    lastEvent,
    reconnects: new Counter({
      name: 'kube_rx_watch_reconnects_total',
      help: 'Total number of times a watch connected again after its connection ended',
      labelNames,
      registers,
    }),
    relists: new Counter({
      name: 'kube_rx_watch_relists_total',
      help: 'Total number of lists after the first (410 Gone, or a watch-list that fell back)',
      labelNames,
      registers,
    }),
    tallies,
  };
  watchSets.set(registry, set);
  return set;
}
