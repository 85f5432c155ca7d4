import type { SchedulerLike, Subscription } from 'rxjs';
import { microTime } from '../../objects/microTime.js';
import { defaultKey } from '../../objects/defaultKey.js';
import type { KubernetesObject, Logger } from '../../types.js';
import { TokenBucket } from '../queue/TokenBucket.js';
import type { EventDropReason, EventRecord } from './EventRecord.js';
import type { EventBody, EventSink, ObjectReference } from './EventSink.js';

/** Identical events closer than this are one Event with a series (client-go's 6 minutes). */
export const SERIES_WINDOW_MS = 6 * 60_000;
/** client-go's per-object spam filter: a burst of 25, then one Event per 5 minutes. */
const BUCKET_BURST = 25;
const BUCKET_PER_SECOND = 1 / 300;
/** Series and buckets kept at most; the oldest go first (memory stays bounded). */
const MAX_TRACKED = 4096;
/** events.k8s.io/v1's bound on a note. */
const NOTE_LIMIT = 1024;
const NAME_LIMIT = 128;
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** What {@link RecorderCore} is configured with. */
export interface RecorderCoreConfig {
  reportingController: string;
  reportingInstance: string;
  scheduler: SchedulerLike;
  seriesUpdateIntervalMs: number;
  maxPendingWrites: number;
  writeTimeoutMs: number;
  logger?: Logger;
  onDrop?: (reason: EventDropReason, event: EventRecord) => void;
}

/** One Event being counted: written once, then its series count at most every interval. */
interface Series {
  body: EventBody;
  count: number;
  written: number;
  lastObservedAt: number;
  created: 'pending' | 'done' | 'failed';
  lastFlushAt: number;
  flush?: Subscription;
}

/**
 * The recorder without its HTTP: aggregation into series, the per-object token bucket and the
 * bound on writes in flight, on a scheduler's clock (so virtual time drives it in specs).
 * `record` never throws and never waits.
 */
export class RecorderCore {
  private readonly series = new Map<string, Series>();
  private readonly buckets = new Map<string, TokenBucket>();
  /** Writes sent and not yet settled (bounded by `maxPendingWrites`). */
  private inFlight = 0;
  private sequence = 0;
  private closed = false;

  constructor(
    private readonly sink: EventSink,
    private readonly config: RecorderCoreConfig,
  ) {}

  record(regarding: KubernetesObject, event: EventRecord): void {
    try {
      if (this.closed) return;
      const why = invalid(regarding, event);
      if (why) {
        this.config.logger?.warn(`event not recorded: ${why}`);
        return this.dropped('invalid', event);
      }
      const now = this.config.scheduler.now();
      const key = seriesKey(regarding, event);
      const known = this.series.get(key);
      if (known && now - known.lastObservedAt <= SERIES_WINDOW_MS && known.created !== 'failed') {
        known.count++;
        known.lastObservedAt = now;
        return this.scheduleFlush(known);
      }
      if (!this.bucketFor(regarding, now).take(now)) return this.dropped('rate-limited', event);
      const series: Series = {
        body: this.body(regarding, event, now),
        count: 1,
        written: 1,
        lastObservedAt: now,
        created: 'pending',
        lastFlushAt: now,
      };
      this.track(this.series, key, series);
      this.write(event, (signal) => this.sink.create(series.body, signal)).then((ok) => {
        series.created = ok ? 'done' : 'failed';
        if (ok && series.count > series.written) this.scheduleFlush(series);
      });
    } catch (error) {
      // A recorder never fails its caller's run; this would be a bug of ours.
      this.config.logger?.warn(`event not recorded: ${String(error)}`);
    }
  }

  /**
   * Records nothing more and drops the count updates not yet due; writes in flight finish (each
   * bounded by `writeTimeoutMs`), so an Event recorded just before a shutdown is not lost.
   */
  close(): void {
    this.closed = true;
    for (const s of this.series.values()) s.flush?.unsubscribe();
    this.series.clear();
  }

  private scheduleFlush(series: Series): void {
    if (series.flush || series.created !== 'done') return;
    const { scheduler, seriesUpdateIntervalMs } = this.config;
    const delay = Math.max(0, series.lastFlushAt + seriesUpdateIntervalMs - scheduler.now());
    series.flush = scheduler.schedule(() => {
      series.flush = undefined;
      if (this.closed || series.count <= series.written) return;
      const count = series.count;
      series.written = count;
      series.lastFlushAt = scheduler.now();
      const update = { count, lastObservedTime: microTime(series.lastObservedAt) };
      const event = eventOf(series.body);
      void this.write(event, (signal) => this.sink.updateSeries(series.body, update, signal));
    }, delay);
  }

  /** Runs one write unless too many are waiting; resolves whether it succeeded. */
  private async write(
    event: EventRecord,
    send: (signal: AbortSignal) => Promise<void>,
  ): Promise<boolean> {
    if (this.inFlight >= this.config.maxPendingWrites) {
      this.dropped('overflow', event);
      return false;
    }
    const controller = new AbortController();
    this.inFlight++;
    // A stalled write's bound alone keeps no process alive (its request does while it is open).
    const timer = setTimeout(() => controller.abort(), this.config.writeTimeoutMs);
    (timer as { unref?: () => void }).unref?.();
    try {
      await send(controller.signal);
      return true;
    } catch (error) {
      if (!this.closed) {
        this.config.logger?.warn(`event ${event.reason} not written: ${messageOf(error)}`);
        this.dropped('write-failed', event);
      }
      return false;
    } finally {
      clearTimeout(timer);
      this.inFlight--;
    }
  }

  private bucketFor(regarding: KubernetesObject, now: number): TokenBucket {
    const key = objectKey(regarding);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(BUCKET_PER_SECOND, BUCKET_BURST, now);
      this.track(this.buckets, key, bucket);
    }
    return bucket;
  }

  /** Adds to a bounded map: past its bound the oldest entry (first inserted) goes. */
  private track<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > MAX_TRACKED) {
      const oldest = map.keys().next().value as string;
      (map.get(oldest) as Series | undefined)?.flush?.unsubscribe?.();
      map.delete(oldest);
    }
  }

  private body(regarding: KubernetesObject, event: EventRecord, now: number): EventBody {
    const ref = referenceTo(regarding);
    const name = ref.name!.slice(0, 253 - 17);
    const stamp = (
      BigInt(Math.max(0, Math.floor(now))) * 1_000_000n +
      BigInt(this.sequence++ % 1e6)
    )
      .toString(16)
      .slice(-16);
    return {
      metadata: { name: `${name}.${stamp}`, namespace: ref.namespace || 'default' },
      eventTime: microTime(now),
      reportingController: this.config.reportingController,
      reportingInstance: this.config.reportingInstance,
      action: event.action,
      reason: event.reason,
      type: event.type,
      ...(event.note !== undefined && { note: cut(event.note, NOTE_LIMIT) }),
      regarding: ref,
      ...(event.related && { related: referenceTo(event.related) }),
    };
  }

  private dropped(reason: EventDropReason, event: EventRecord): void {
    try {
      this.config.onDrop?.(reason, event);
    } catch {
      // a metrics hook that throws must not fail a run either
    }
  }
}

/** Why an event cannot be recorded, or undefined when it can. */
function invalid(regarding: KubernetesObject, event: EventRecord): string | undefined {
  if (typeof regarding !== 'object' || regarding === null) return 'regarding is not an object';
  if (typeof regarding.metadata?.name !== 'string' || regarding.metadata.name === '')
    return 'regarding has no metadata.name';
  if (typeof event !== 'object' || event === null) return 'the event is not an object';
  if (event.type !== 'Normal' && event.type !== 'Warning')
    return `type ${JSON.stringify(event.type)} is not 'Normal' or 'Warning'`;
  if (
    typeof event.reason !== 'string' ||
    event.reason.length > NAME_LIMIT ||
    !REASON.test(event.reason)
  )
    return `reason ${JSON.stringify(event.reason)} is not a CamelCase word of at most 128 characters`;
  if (typeof event.action !== 'string' || event.action === '' || event.action.length > NAME_LIMIT)
    return `action ${JSON.stringify(event.action)} must be 1 to 128 characters`;
  if (event.note !== undefined && typeof event.note !== 'string') return 'note is not a string';
  return undefined;
}

function referenceTo(object: KubernetesObject): ObjectReference {
  const { name, namespace, uid, resourceVersion } = object.metadata ?? {};
  return {
    ...(object.apiVersion && { apiVersion: object.apiVersion }),
    ...(object.kind && { kind: object.kind }),
    ...(namespace && { namespace }),
    ...(name && { name }),
    ...(uid && { uid }),
    ...(resourceVersion && { resourceVersion }),
  };
}

/** The object an event is about: its kind, place and uid (a re-created object is another). */
function objectKey(object: KubernetesObject): string {
  return `${object.apiVersion ?? ''}|${object.kind ?? ''}|${defaultKey(object)}|${object.metadata?.uid ?? ''}`;
}

/** Events that are the same but for their time: one series. */
function seriesKey(regarding: KubernetesObject, event: EventRecord): string {
  const related = event.related ? objectKey(event.related) : '';
  return JSON.stringify([
    objectKey(regarding),
    related,
    event.type,
    event.reason,
    event.action,
    event.note ?? '',
  ]);
}

function eventOf(body: EventBody): EventRecord {
  return {
    type: body.type as EventRecord['type'],
    reason: body.reason,
    action: body.action,
    note: body.note,
  };
}

function cut(text: string, bytes: number): string {
  if (new TextEncoder().encode(text).length <= bytes) return text;
  let out = text.slice(0, bytes);
  while (new TextEncoder().encode(out).length > bytes) out = out.slice(0, -1);
  return out;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
