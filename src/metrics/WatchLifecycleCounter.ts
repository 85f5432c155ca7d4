import type { LifecycleEvent } from '../operators/resume/LifecycleEvent.js';
import type { WatchMetricSet } from './metricSets.js';

/**
 * Counts one watch's reconnects and relists from its lifecycle: every connection opened after
 * the first is a reconnect; every list that completes after the first is a relist (the state
 * rebuilt after `410 Gone`, or a watch-list that fell back). The first list and connection are
 * how a watch starts, not faults, so they are not counted.
 *
 * @example
 * const counter = new WatchLifecycleCounter(watchMetricSet(register), { resource: 'v1/pods' });
 * resilientWatch(kc, pods, {}, { onLifecycle: (e) => counter.observe(e) });
 */
export class WatchLifecycleCounter {
  private connected = false;
  private listed = false;
  private readonly reconnects: { inc(value?: number): void };
  private readonly relists: { inc(value?: number): void };

  constructor(
    set: WatchMetricSet,
    labels: { controller?: string; member?: string; resource: string },
  ) {
    this.reconnects = set.reconnects.labels(labels);
    this.relists = set.relists.labels(labels);
    // The series exist from the start (at 0), so that rate() and alerts see them at once.
    this.reconnects.inc(0);
    this.relists.inc(0);
  }

  observe(event: LifecycleEvent): void {
    if (event.type === 'connecting') {
      if (this.connected) this.reconnects.inc();
      this.connected = true;
    } else if (event.type === 'relist-end') {
      if (this.listed) this.relists.inc();
      this.listed = true;
    }
  }
}
