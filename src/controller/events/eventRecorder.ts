import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { Cluster, KubernetesObject, Logger } from '../../types.js';
import type { EventDropReason, EventRecord } from './EventRecord.js';
import { httpEventSink } from './httpEventSink.js';
import { RecorderCore } from './RecorderCore.js';

/**
 * Configuration of {@link eventRecorder}: who reports (events.k8s.io/v1's `reportingController`
 * and `reportingInstance`), and the hooks and clocks.
 *
 * @example
 * eventRecorder(kc, { reportingController: 'example.com/tenant-operator', reportingInstance: hostname() });
 */
export interface EventRecorderConfig {
  /** The controller's name, e.g. `'example.com/tenant-operator'` (1 to 128 characters). */
  reportingController: string;
  /** This replica, e.g. its pod name (1 to 128 characters). */
  reportingInstance: string;
  /** Where the series and buckets read the time and schedule updates (default asyncScheduler). */
  scheduler?: SchedulerLike;
  /** A series' count is written at most this often (default 5 000 ms). */
  seriesUpdateIntervalMs?: number;
  /** Writes waiting for the API server at most; past it events are dropped (default 100). */
  maxPendingWrites?: number;
  /** A write that takes longer is aborted and counted as failed (default 10 000 ms). */
  writeTimeoutMs?: number;
  /** Hears why an event was not written or was invalid. */
  logger?: Logger;
  /** Called for every event not written, with why (what `kube-rx/metrics` counts). */
  onDrop?: (reason: EventDropReason, event: EventRecord) => void;
}

/**
 * Writes Kubernetes Events about objects, as client-go's `tools/events` recorder does and
 * `kubectl describe` shows: events.k8s.io/v1 (core/v1 where that is not served), off the
 * caller's path. `record` returns at once, never throws, never fails a reconcile run.
 * - Identical events for one object (same type, reason, action, note, related) within 6 minutes
 *   are one Event with an `EventSeries` whose `count` and `lastObservedTime` are written at
 *   most every `seriesUpdateIntervalMs`: a burst of 60 costs a create and a count update.
 *   Distinct notes are never merged; two objects never share a series.
 * - A per-object token bucket (burst 25, one more every 5 minutes: client-go's spam filter)
 *   limits new Events; what it refuses is dropped and reported to `onDrop` ('rate-limited').
 * - At most `maxPendingWrites` writes wait for the server ('overflow' past it), each bounded by
 *   `writeTimeoutMs` ('write-failed'), so a stalled server never grows memory.
 *
 * ```
 * record(pod, Scaled) x60 in 1 s:  C----------U        C: create (count 1), U: series count 60
 * time (s):                        0          5
 * ```
 *
 * @example
 * const recorder = eventRecorder(kc, { reportingController: 'example.com/web', reportingInstance: 'web-0' });
 * recorder.record(deployment, { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'to 3 replicas' });
 */
export function eventRecorder(cluster: Cluster, config: EventRecorderConfig): EventRecorder {
  const {
    reportingController,
    reportingInstance,
    scheduler = asyncScheduler,
    seriesUpdateIntervalMs = 5_000,
    maxPendingWrites = 100,
    writeTimeoutMs = 10_000,
    logger,
    onDrop,
  } = config ?? ({} as EventRecorderConfig);
  for (const [name, value] of [
    ['reportingController', reportingController],
    ['reportingInstance', reportingInstance],
  ] as const) {
    if (typeof value !== 'string' || value === '' || value.length > 128)
      throw new TypeError(`eventRecorder: ${name} must be 1 to 128 characters`);
  }
  for (const [name, value] of [
    ['seriesUpdateIntervalMs', seriesUpdateIntervalMs],
    ['maxPendingWrites', maxPendingWrites],
    ['writeTimeoutMs', writeTimeoutMs],
  ] as const) {
    if (!Number.isFinite(value) || value < 0)
      throw new TypeError(`eventRecorder: ${name} must be a number >= 0`);
  }
  const core = new RecorderCore(httpEventSink(cluster, logger), {
    reportingController,
    reportingInstance,
    scheduler,
    seriesUpdateIntervalMs,
    maxPendingWrites,
    writeTimeoutMs,
    logger,
    onDrop,
  });
  return {
    record: (regarding, event) => core.record(regarding, event),
    close: () => core.close(),
  };
}

/**
 * Records Events about objects: what `eventRecorder` returns and `ctx.recorder` is in a
 * controller's reconcile.
 *
 * @example
 * recorder.record(tenant, { type: 'Warning', reason: 'QuotaExceeded', action: 'Reconcile', note: 'cpu 12 > 8' });
 */
export interface EventRecorder {
  /** Writes (or counts into a series) one Event about `regarding`; returns at once. */
  record(regarding: KubernetesObject, event: EventRecord): void;
  /**
   * Stops the recorder: nothing more is recorded and count updates not yet due are dropped;
   * writes in flight finish, each bounded by `writeTimeoutMs`.
   */
  close(): void;
}
