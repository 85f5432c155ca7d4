import { type MonoTypeOperatorFunction, tap } from 'rxjs';
import type { Registry } from 'prom-client';
import type { LifecycleEvent } from '../operators/resume/LifecycleEvent.js';
import type { ResourceRef } from '../types.js';
import { assertObjectArgument } from '../objects/argumentChecks.js';
import { assertLabelValue, assertRegistry, assertResourceLabel } from './checkMetricsArguments.js';
import { watchMetricSet } from './metricSets.js';
import { resourceLabel } from './resourceLabel.js';
import { WatchLifecycleCounter } from './WatchLifecycleCounter.js';

/** Which watch the metrics are about: the label values, fixed when it is set up. */
export interface WatchMetricsConfig {
  /** The `resource` label: a ResourceRef (`v1/pods`, `apps/v1/deployments`) or a string. */
  resource: ResourceRef<any> | string;
  /** The `controller` label, for a watch that feeds a controller (absent otherwise). */
  controller?: string;
}

/** What `countEvents` counts: anything with an event `type`. */
export interface WatchEventLike {
  /** ADDED, MODIFIED, DELETED, BOOKMARK (or ERROR, not counted). */
  type: string;
}

/** The hooks of one watch's metrics. */
export interface WatchMetrics {
  /** Give it as `onLifecycle` of `resilientWatch` / `resumeFromResourceVersion`. */
  onLifecycle: (event: LifecycleEvent) => void;
  /** An operator that counts each event passing (ADDED, MODIFIED, DELETED, BOOKMARK). */
  countEvents<E extends WatchEventLike>(): MonoTypeOperatorFunction<E>;
}

/**
 * Metrics of a resilient watch in a prom-client `registry`: `kube_rx_watch_events_total`,
 * `kube_rx_watch_reconnects_total`, `kube_rx_watch_relists_total` and
 * `kube_rx_watch_last_event_seconds` (Unix time of the last event), labelled by `resource` (and
 * `controller` when given) and nothing else: the label values are fixed here, never taken from
 * an object. The metrics are registered once per registry; each call adds its series.
 *
 * ```
 * events:     -a--m--b--d->        (b: a BOOKMARK)
 * countEvents:-a--m--b--d->        kube_rx_watch_events_total{resource="v1/pods"} 4
 * ```
 *
 * @example
 * import { register } from 'prom-client';
 * import { watchMetrics } from 'kube-rx/metrics';
 *
 * const metrics = watchMetrics(register, { resource: pods });
 * resilientWatch(kc, pods, {}, { onLifecycle: metrics.onLifecycle })
 *   .pipe(metrics.countEvents(), toStore())
 *   .subscribe(render);
 */
export function watchMetrics(registry: Registry, config: WatchMetricsConfig): WatchMetrics {
  assertRegistry('watchMetrics', registry);
  assertObjectArgument('watchMetrics', 'config', config);
  const { resource, controller } = config;
  assertResourceLabel('watchMetrics', resource);
  assertLabelValue('watchMetrics', 'controller', controller, true);
  const set = watchMetricSet(registry);
  const labels =
    controller === undefined
      ? { resource: resourceLabel(resource) }
      : { controller, resource: resourceLabel(resource) };
  const lifecycle = new WatchLifecycleCounter(set, labels);
  const key = JSON.stringify(labels);
  let tally = set.tallies.get(key);
  if (tally === undefined) {
    tally = { labels, events: 0, lastEventMs: undefined };
    set.tallies.set(key, tally);
  }
  set.events.labels(labels).inc(0);
  return {
    onLifecycle: (event) => lifecycle.observe(event),
    countEvents: () =>
      tap((event) => {
        if (event.type === 'ERROR') return;
        tally!.events++;
        tally!.lastEventMs = Date.now();
      }),
  };
}
