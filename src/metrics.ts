// The `kube-rx/metrics` entry: Prometheus metrics through prom-client, an optional peer
// dependency that only this entry loads (nothing of the core imports it).
export { controllerMetrics } from './metrics/controllerMetrics.js';
export type { ControllerMetrics, ControllerMetricsConfig } from './metrics/controllerMetrics.js';
export { watchMetrics } from './metrics/watchMetrics.js';
export type { WatchEventLike, WatchMetrics, WatchMetricsConfig } from './metrics/watchMetrics.js';
export { WORKQUEUE_BUCKETS } from './metrics/metricSets.js';
