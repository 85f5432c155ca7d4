import { Observable, asyncScheduler, type SchedulerLike, type Subscriber } from 'rxjs';
import { WatchError } from '../WatchError.js';
import { describeResourcePath } from '../sources/resourcePath.js';
import { apiVersionOf } from '../sources/resources.js';
import { definedOptions, type WatchSource } from '../sources/WatchSource.js';
import type { KubernetesObject, WatchEvent, WatchObjectEvent, WatchOptions } from '../types.js';
import {
  RESET_AFTER,
  SHORT_WATCH,
  backoffDelay,
  randomTimeoutSeconds,
} from './internal/backoff.js';
import { classifyFailure } from './internal/classifyFailure.js';
import { DeliveredState, type Resync } from './internal/deliveredState.js';
import { endBookmark, resourceVersionOf } from './internal/events.js';
import { isInitialEventsEnd } from './isInitialEventsEnd.js';
import { requireWatchSource } from './internal/requireWatchSource.js';
import { SerialSteps } from './internal/serialSteps.js';

/** Configuration of {@link resumeFromResourceVersion}. */
export interface ResumeConfig {
  /**
   * How to start when the source options carry no `resourceVersion`: `'list'` (default) lists
   * and watches from the list's version; `'watch-list'` asks the watch for the initial state
   * (`sendInitialEvents`), falling back to a list when the server refuses; `'none'` just watches.
   */
  initialState?: 'list' | 'watch-list' | 'none';
  /** On `410 Gone`: relist and emit the difference (default), or error with the WatchError. */
  onExpired?: 'relist' | 'error';
  /** How many consecutive failures are retried (default Infinity); then the stream errors. */
  maxRetries?: number;
  /** Told about every step: connecting, connected, disconnected, backoff, relists, expiry. */
  onLifecycle?: (event: LifecycleEvent) => void;
  /** Where backoff delays and time run (default `asyncScheduler`). */
  scheduler?: SchedulerLike;
  /** Jitter and the per-connection `timeoutSeconds` draw from it (default `Math.random`). */
  random?: () => number;
}

/** What {@link ResumeConfig.onLifecycle} is told, in order. */
export type LifecycleEvent =
  | ConnectingEvent
  | ConnectedEvent
  | DisconnectedEvent
  | BackoffEvent
  | RelistStartEvent
  | RelistEndEvent
  | ExpiredEvent;

/** A connection opens. */
export interface ConnectingEvent {
  /** The lifecycle step. */
  type: 'connecting';
  /** The version asked for (none for a fresh start). */
  resourceVersion: string | undefined;
}
/** The connection's first event arrived: the server accepted the watch. */
export interface ConnectedEvent {
  /** The lifecycle step. */
  type: 'connected';
}
/** The connection ended: the server closed it, it was too short to count, or it failed. */
export interface DisconnectedEvent {
  /** The lifecycle step. */
  type: 'disconnected';
  /** Why: a clean close, a clean close too soon after opening, or a failure. */
  reason: 'closed' | 'too-short' | 'error';
  /** The failure, when there was one. */
  error?: WatchError;
}
/** Waiting before the next attempt. */
export interface BackoffEvent {
  /** The lifecycle step. */
  type: 'backoff';
  /** How long, in ms. */
  delay: number;
  /** The number of this retry in the backoff sequence, from 1. */
  attempt: number;
  /** The failure that caused it. */
  error: WatchError;
}
/** A list (or a watch-list's initial events) starts, initially or after expiry. */
export interface RelistStartEvent {
  /** The lifecycle step. */
  type: 'relist-start';
}
/** A list ended; its difference and the end BOOKMARK have been emitted. */
export interface RelistEndEvent {
  /** The lifecycle step. */
  type: 'relist-end';
  /** How many objects the fresh state holds. */
  count: number;
}
/** The server answered 410 Gone: the cursor is too old. */
export interface ExpiredEvent {
  /** The lifecycle step. */
  type: 'expired';
}

type Settings = Required<ResumeConfig>;

/**
 * Turns a watch into an endless, gap-free stream with client-go Reflector semantics: it follows
 * the resourceVersion of every event (bookmarks included), reconnects from it when the server
 * closes the watch, backs off with full jitter on failures (800 ms doubling to 30 s, reset after
 * 2 minutes up, never below Retry-After), relists after `410 Gone` emitting only the difference,
 * drops exact repeats, and never lets an ERROR event through. 400, 403, 404 and a second 401 in
 * a row error the stream with the WatchError, as do `maxRetries` consecutive failures.
 *
 * ```
 * list:       (l|)            l = [a@3, b@4] at 4
 * watch #1:      -m--|        m = a@6           (server closes: reconnect from 6 at once)
 * watch #2:          --x      x = ERROR 410     (relist: b vanished, a unchanged)
 * list:                (l|)   l = [a@6, c@8] at 9
 * output:     (abe)-m-----(cde)
 *             a b = ADDED, e = end BOOKMARK, m = MODIFIED a@6, c = ADDED c@8, d = DELETED b@4
 * ```
 *
 * @example
 * fromWatch(kc, pods)
 *   .pipe(
 *     withBookmarks(),
 *     resumeFromResourceVersion({ onLifecycle: (e) => console.error('watch', e.type) }),
 *     toStore(),
 *   )
 *   .subscribe((store) => render(store.values()));
 */
export function resumeFromResourceVersion<T = KubernetesObject>(
  config: ResumeConfig = {},
): (source: Observable<WatchEvent<T>>) => Observable<WatchEvent<T>> {
  const settings: Settings = {
    initialState: 'list',
    onExpired: 'relist',
    maxRetries: Infinity,
    onLifecycle: () => {},
    scheduler: asyncScheduler,
    random: Math.random,
    ...definedOptions(config),
  };
  return (input) => {
    const source = requireWatchSource(input, 'resumeFromResourceVersion');
    return new Observable<WatchEvent<T>>((subscriber) =>
      new Resumer(source, settings, subscriber).start(),
    );
  };
}

/**
 * Whether a watch from `resourceVersion` starts afresh: none (`''` is not sent), or "0", which
 * means "any version" to the server. Either way it answers with an unordered burst of ADDED.
 */
function isFreshStart(resourceVersion: string | undefined): boolean {
  return !resourceVersion || resourceVersion === '0';
}

interface Connection<T> {
  startedAt: number;
  /** Its first event has arrived: the server accepted the watch. */
  connected: boolean;
  /** The unordered synthetic ADDED of a watch without a version are still arriving. */
  burst: boolean;
  /** A watch-list whose initial events are still arriving, compared against what was delivered. */
  resync?: Resync<T>;
}

/** The state of one subscription: each subscriber gets its own cursor, memory and backoff. */
class Resumer<T> {
  private readonly delivered = new DeliveredState<T>();
  private readonly steps: SerialSteps;
  private readonly freshVersion: string | undefined;
  private cursor: string | undefined;
  private mustSync: boolean;
  /** Failures since the backoff last reset (after 2 minutes up): sets the backoff delay. */
  private attempt = 0;
  /** Failures since the last event or successful list: what `maxRetries` bounds. */
  private consecutiveFailures = 0;
  private lastWasUnauthorized = false;
  private watchListRefused = false;
  private idleSinceSync = false;

  constructor(
    private readonly source: WatchSource<T>,
    private readonly settings: Settings,
    private readonly subscriber: Subscriber<WatchEvent<T>>,
  ) {
    this.steps = new SerialSteps(settings.scheduler);
    const given = source.options.resourceVersion;
    if (isFreshStart(given)) this.freshVersion = given || undefined;
    else this.cursor = given;
    this.mustSync = !given && settings.initialState !== 'none';
  }

  start(): () => void {
    this.next();
    return () => this.steps.close();
  }

  /** Chooses what to do from the state alone, so every retry path resumes the same way. */
  private next(): void {
    if (this.mustSync || (this.cursor === undefined && this.delivered.size > 0)) this.sync();
    else this.watch(this.cursor ?? this.freshVersion);
  }

  private sync(): void {
    this.emitLifecycle({ type: 'relist-start' });
    if (this.settings.initialState === 'watch-list' && !this.watchListRefused)
      this.watch(undefined, this.delivered.resync());
    else this.list();
  }

  private list(): void {
    let answered = false;
    this.steps.run(this.source.list(), {
      next: ({ items, resourceVersion }) => {
        answered = true;
        const resync = this.delivered.resync();
        for (const item of items) this.emit(resync.offer(item));
        this.endSync(resync, endBookmark(resourceVersion, apiVersionOf(this.source.resource)));
        if (!this.subscriber.closed) this.next();
      },
      error: (error) =>
        error instanceof WatchError ? this.fail(error, true) : this.subscriber.error(error),
      complete: () => {
        if (!answered) this.fail(this.error('the list ended without a result'), true);
      },
    });
  }

  private endSync(resync: Resync<T>, bookmark: WatchObjectEvent<T>): void {
    for (const gone of resync.finish()) this.emit(gone);
    this.emit(bookmark);
    this.cursor = resourceVersionOf(bookmark);
    this.mustSync = false;
    this.idleSinceSync = true;
    this.lastWasUnauthorized = false;
    this.consecutiveFailures = 0;
    this.emitLifecycle({ type: 'relist-end', count: resync.count });
  }

  private watch(resourceVersion: string | undefined, resync?: Resync<T>): void {
    const { options } = this.source;
    const patch: Partial<WatchOptions> = {
      resourceVersion,
      resourceVersionMatch: resync ? 'NotOlderThan' : undefined,
      sendInitialEvents: resync ? true : undefined,
      allowWatchBookmarks: resync ? true : (options.allowWatchBookmarks ?? true),
      timeoutSeconds: options.timeoutSeconds ?? randomTimeoutSeconds(this.settings.random),
    };
    const connection: Connection<T> = {
      startedAt: this.settings.scheduler.now(),
      connected: false,
      burst: !resync && isFreshStart(resourceVersion),
      resync,
    };
    this.emitLifecycle({ type: 'connecting', resourceVersion });
    this.steps.run(this.source.withOptions(patch), {
      next: (event) => this.onEvent(connection, event),
      error: (error) => this.ended(connection, error),
      complete: () => this.ended(connection),
    });
  }

  private onEvent(connection: Connection<T>, event: WatchEvent<T>): void {
    // Every way out of ended() starts another step or tears down, which closes this connection.
    if (event.type === 'ERROR') return this.ended(connection, event.error);
    if (!connection.connected) {
      // Nothing sets these again before this connection ends: once per connection is enough.
      connection.connected = true;
      this.emitLifecycle({ type: 'connected' });
      this.consecutiveFailures = 0;
      this.lastWasUnauthorized = false;
    }
    const { resync } = connection;
    if (resync) {
      // Initial events: their versions are no cursor; the end bookmark is, once they are all in.
      if (event.type === 'DELETED') this.emit(this.delivered.apply(event));
      else if (isInitialEventsEnd(event)) {
        connection.resync = undefined;
        this.endSync(resync, event);
      } else if (event.type !== 'BOOKMARK') this.emit(resync.offer(event.object));
      return;
    }
    this.idleSinceSync = false;
    // A burst ADDED is delivered (deduplicated) but its version may be newer than what is yet to
    // come; the first other event proves the burst is over and is a safe cursor.
    if (connection.burst && event.type === 'ADDED')
      return void this.emit(this.delivered.apply(event));
    connection.burst = false;
    this.cursor = resourceVersionOf(event) ?? this.cursor;
    this.emit(this.delivered.apply(event));
  }

  private ended(connection: Connection<T>, error?: unknown): void {
    const up = this.settings.scheduler.now() - connection.startedAt;
    if (up >= RESET_AFTER) this.attempt = 0;
    if (error !== undefined && !(error instanceof WatchError)) return this.subscriber.error(error);
    if (connection.resync && (!error || classifyFailure(error) === 'refused')) {
      // The server does not do watch-list (or not for us): client-go's fallback, for good.
      this.emitLifecycle({ type: 'disconnected', reason: error ? 'error' : 'closed', error });
      this.watchListRefused = true;
      return this.steps.later(0, () => this.list());
    }
    if (!error && !connection.connected && up < SHORT_WATCH) {
      const short = this.error(`very short watch: it ended after ${up} ms without an event`);
      this.emitLifecycle({ type: 'disconnected', reason: 'too-short', error: short });
      return this.fail(short, false);
    }
    this.emitLifecycle({ type: 'disconnected', reason: error ? 'error' : 'closed', error });
    if (!error) {
      // The server accepted the watch and ended it in due course: the credentials worked.
      this.lastWasUnauthorized = false;
      return this.steps.later(0, () => this.next());
    }
    this.fail(error, connection.resync !== undefined);
  }

  /** `syncing`: the failure hit a list or a watch-list's initial events. */
  private fail(error: WatchError, syncing: boolean): void {
    const kind = classifyFailure(error);
    const repeatedUnauthorized = this.lastWasUnauthorized;
    this.lastWasUnauthorized = kind === 'unauthorized';
    switch (kind) {
      case 'refused':
        return this.subscriber.error(error);
      case 'unauthorized':
        if (repeatedUnauthorized) return this.subscriber.error(error);
        return this.retry(error, 0);
      case 'expired':
        this.emitLifecycle({ type: 'expired' });
        if (this.settings.onExpired === 'error') return this.subscriber.error(error);
        this.mustSync = true;
        // A 410 right after a sync, before anything moved, would relist in a loop: back off.
        if (syncing || this.idleSinceSync) return this.retry(error);
        return this.steps.later(0, () => this.next());
      case 'transient':
        return this.retry(error);
    }
  }

  private retry(error: WatchError, delay?: number): void {
    const attempt = ++this.attempt;
    if (++this.consecutiveFailures > this.settings.maxRetries) return this.subscriber.error(error);
    const wait = delay ?? backoffDelay(attempt, this.settings.random, error.retryAfterSeconds);
    this.emitLifecycle({ type: 'backoff', delay: wait, attempt, error });
    this.steps.later(wait, () => this.next());
  }

  private emit(event: WatchObjectEvent<T> | undefined): void {
    if (event) this.subscriber.next(event);
  }

  private emitLifecycle(event: LifecycleEvent): void {
    if (!this.subscriber.closed) this.settings.onLifecycle(event);
  }

  private error(message: string): WatchError {
    return new WatchError(message, {
      errorType: 'SYSTEM_ERROR',
      statusCode: 0,
      resourcePath: describeResourcePath(this.source.resource, this.source.options.namespace),
    });
  }
}
