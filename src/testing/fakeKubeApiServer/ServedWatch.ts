import { abortReply } from './protocol.js';
import type { Reply } from './protocol.js';
import { bookmark } from '../marbles/builders.js';
import type { KubernetesObject } from '../../types.js';
import type { Entry, ObjectStore, ResourceStore, StoredEvent } from './ObjectStore.js';
import type { CollectionQuery } from './query.js';
import type { ObjectMatcher } from './selectors.js';
import { tooOld } from './statusBody.js';
import type { KubeStatus } from './statusBody.js';

/** Faults consumed by one watch connection. */
export interface WatchFaultPlan {
  dropAfter?: number;
  cutAfter?: number;
  stallMs?: number;
  closeImmediately?: boolean;
}

export interface WatchSettings {
  bookmarkIntervalMs: number;
  /** Consumes the faults armed for this connection (called once its request is accepted). */
  takePlan(): WatchFaultPlan;
  headers: Record<string, string>;
  onClose(watch: ServedWatch): void;
  /**
   * Another shape for the objects of events (PartialObjectMetadata, Table): the JSON of an
   * entry (at resourceVersion `rv` when given) or of a bookmark object, and the Content-Type.
   */
  shape?: WatchShape;
}

/** How a watch in another shape than full objects encodes them. */
export interface WatchShape {
  contentType: string;
  object(entry: Entry, rv?: number): string;
  bookmark(object: KubernetesObject): string;
}

const lineCache = new WeakMap<StoredEvent, string>();

function line(type: string, objectJson: string): string {
  return `{"type":"${type}","object":${objectJson}}\n`;
}

function plainLine(e: StoredEvent): string {
  let l = lineCache.get(e);
  if (l === undefined) {
    l = line(e.type, e.entry.json);
    lineCache.set(e, l);
  }
  return l;
}

/** `entry`'s object with another resourceVersion, as JSON. */
function withVersion(entry: Entry, rv: number): string {
  return JSON.stringify({
    ...entry.obj,
    metadata: { ...entry.obj.metadata, resourceVersion: `${rv}` },
  });
}

/**
 * The line a watcher with `matches` gets for `e`, following the watch cache: an object that
 * starts matching is ADDED, one that stops matching is DELETED (its previous content at the
 * event's resourceVersion), one that never matches is skipped.
 */
function lineFor(
  e: StoredEvent,
  matches: ObjectMatcher | undefined,
  shape: WatchShape | undefined,
): string | undefined {
  const as = (type: string, entry: Entry, rv?: number): string => {
    if (shape !== undefined) return line(type, shape.object(entry, rv));
    if (rv !== undefined) return line(type, withVersion(entry, rv));
    return type === e.type && entry === e.entry ? plainLine(e) : line(type, entry.json);
  };
  if (matches === undefined) return as(e.type, e.entry);
  const now = matches(e.entry.obj);
  if (e.type !== 'MODIFIED') return now ? as(e.type, e.entry) : undefined;
  const before = e.prev !== undefined && matches(e.prev.obj);
  if (now && before) return as(e.type, e.entry);
  if (now) return as('ADDED', e.entry);
  if (before) return as('DELETED', e.prev!, e.rv);
  return undefined;
}

/**
 * One open `?watch=true` response. Lines go out in batches, as kube-apiserver's watch handler
 * flushes only when no further event is queued for the watcher: the events of every request
 * the server handles in one turn of the event loop (a burst of writes) are one socket write,
 * not one each.
 */
export class ServedWatch {
  private written = 0;
  private held = false;
  private dead = false;
  private pending: string[] = [];
  /** Lines written but not flushed yet (see `flush`), and the flush scheduled for them. */
  private unflushed = '';
  private flushing: NodeJS.Immediate | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private plan: WatchFaultPlan = {};
  /** The last resourceVersion this watch delivered or started from. */
  lastRv: number;

  constructor(
    private readonly res: Reply,
    private readonly objects: ObjectStore,
    private readonly store: ResourceStore,
    private readonly q: CollectionQuery,
    private readonly settings: WatchSettings,
  ) {
    this.lastRv = objects.rv;
  }

  /**
   * Validates the version, sends the headers, the initial events (synthetic ADDED, replay,
   * or sendInitialEvents + end bookmark) and then follows the store. The request handler has
   * refused a version from the future already.
   */
  start(): void {
    const { q, store, objects } = this;
    const current = objects.rv;
    const rv = q.resourceVersion;
    this.plan = this.settings.takePlan();
    const initial: string[] = [];
    let expired: KubeStatus | undefined;
    if (
      q.sendInitialEvents === true ||
      ((rv === undefined || rv === 0) && q.sendInitialEvents !== false)
    ) {
      for (const entry of this.currentEntries()) {
        initial.push(line('ADDED', this.settings.shape?.object(entry) ?? entry.json));
      }
      if (q.sendInitialEvents === true) initial.push(this.bookmarkLine(current, true));
    } else if (rv !== undefined && rv !== 0) {
      if (rv < store.floor) expired = tooOld(rv, store.floor);
      else {
        for (const e of store.eventsSince(rv)) {
          const l = lineFor(e, q.matches, this.settings.shape);
          if (l !== undefined) initial.push(l);
        }
      }
      this.lastRv = rv;
    }
    this.res.writeHead(200, {
      ...this.settings.headers,
      'Content-Type': this.settings.shape?.contentType ?? 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    this.res.flushHeaders();
    this.res.on('close', () => this.dispose());
    if (this.plan.closeImmediately) {
      this.res.end();
      return;
    }
    if (expired !== undefined) {
      this.pending = [line('ERROR', JSON.stringify(expired))];
      this.release();
      this.end();
      return;
    }
    this.pending = initial;
    this.store.listeners.add(this.onEvent);
    if (this.plan.stallMs !== undefined && this.plan.stallMs > 0) {
      this.held = true;
      this.timers.push(setTimeout(() => this.release(), this.plan.stallMs));
    } else this.release();
    if (this.dead) return;
    if (q.allowWatchBookmarks && this.settings.bookmarkIntervalMs > 0) {
      const interval = setInterval(() => this.periodicBookmark(), this.settings.bookmarkIntervalMs);
      this.timers.push(interval);
    }
    if (q.timeoutSeconds !== undefined && q.timeoutSeconds > 0) {
      this.timers.push(setTimeout(() => this.end(), q.timeoutSeconds * 1000));
    }
  }

  /** Current matching objects, newest first: an order the client must not resume from. */
  private currentEntries(): Entry[] {
    const out: Entry[] = [];
    for (const entry of this.store.objects.values()) {
      if (this.q.matches === undefined || this.q.matches(entry.obj)) out.push(entry);
    }
    return out.sort((a, b) => b.rv - a.rv);
  }

  private bookmarkLine(rv: number, initialEventsEnd: boolean): string {
    const { kind, apiVersion } = this.store;
    const { object } = bookmark(`${rv}`, { initialEventsEnd, kind, apiVersion });
    const shape = this.settings.shape;
    return line('BOOKMARK', shape === undefined ? JSON.stringify(object) : shape.bookmark(object));
  }

  private readonly onEvent = (e: StoredEvent): void => {
    this.lastRv = e.rv;
    const l = lineFor(e, this.q.matches, this.settings.shape);
    if (l === undefined) return;
    if (this.held) this.pending.push(l);
    else this.write(l);
  };

  private periodicBookmark(): void {
    if (this.held || this.dead) return;
    this.lastRv = this.objects.rv;
    this.queue(this.bookmarkLine(this.objects.rv, false));
  }

  /** Ends the stall: writes what waited, in order. */
  private release(): void {
    this.held = false;
    if (this.plan.dropAfter === 0) {
      this.disconnect();
      return;
    }
    const lines = this.pending;
    this.pending = [];
    for (const l of lines) this.write(l);
  }

  /** Writes one counted event line, applying dropAfter and cutLine. */
  private write(l: string): void {
    if (this.dead) return;
    if (this.plan.cutAfter !== undefined && this.written === this.plan.cutAfter) {
      const bytes = Buffer.from(l);
      this.flush();
      this.res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      this.disconnect();
      return;
    }
    this.queue(l);
    this.written++;
    if (this.plan.dropAfter !== undefined && this.written >= this.plan.dropAfter) this.disconnect();
  }

  /** Queues `l` for the flush at the end of this turn of the event loop. */
  private queue(l: string): void {
    this.unflushed += l;
    this.flushing ??= setImmediate(this.flush);
  }

  /** Writes what is queued, now. */
  private readonly flush = (): void => {
    if (this.flushing !== undefined) clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.unflushed === '') return;
    // Buffers, not strings: node 20's HTTP/2 can send freed bytes of a string write when the
    // stream is reset right after it (disconnect), and a Buffer stays alive until it is sent.
    const bytes = Buffer.from(this.unflushed);
    this.unflushed = '';
    this.res.write(bytes);
  };

  /**
   * Cuts the watch once what was written is flushed: no final chunk (HTTP/1.1) or a reset
   * stream (HTTP/2), an abrupt end.
   */
  disconnect(): void {
    if (this.dead) return;
    this.flush();
    this.dead = true;
    this.dispose();
    abortReply(this.res);
  }

  /** Sends the in-stream 410 ERROR the API server sends after a compaction, and ends. */
  expire(floor: number): void {
    if (this.dead) return;
    if (this.held) this.release();
    this.write(line('ERROR', JSON.stringify(tooOld(this.lastRv, floor))));
    this.end();
  }

  /** Ends the watch cleanly (final chunk), as the server does at `timeoutSeconds`. */
  end(): void {
    if (this.dead) return;
    if (this.held) this.release();
    if (this.dead) return;
    this.flush();
    this.dead = true;
    this.dispose();
    this.res.end();
  }

  /** Whether this watch follows `store` (a CRD's resource being removed ends its watches). */
  follows(store: ResourceStore): boolean {
    return this.store === store;
  }

  /** Stops following the store and clears every timer. Idempotent. */
  dispose(): void {
    // The response closed (or is ending, after a flush): what is still queued has nowhere to go.
    if (this.flushing !== undefined) clearImmediate(this.flushing);
    this.flushing = undefined;
    this.unflushed = '';
    this.store.listeners.delete(this.onEvent);
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.settings.onClose(this);
  }
}
