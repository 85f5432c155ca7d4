import type { Subscriber } from 'rxjs';
import { WatchError } from '../../WatchError.js';
import { describeResourcePath } from '../../objects/resourcePath.js';
import { apiVersionOf } from '../../objects/resources.js';
import type { WatchSource } from '../../sources/WatchSource.js';
import type { ListResult, WatchEvent, WatchObjectEvent, WatchOptions } from '../../types.js';
import { isInitialEventsEnd } from '../../objects/isInitialEventsEnd.js';
import type { LifecycleEvent } from './LifecycleEvent.js';
import type { ResumeConfig } from './ResumeConfig.js';
import { RESET_AFTER, SHORT_WATCH, backoffDelay, randomTimeoutSeconds } from './backoffDelay.js';
import { classifyFailure } from './classifyFailure.js';
import { endBookmark } from '../../objects/endBookmark.js';
import { resourceVersionOf } from '../../objects/resourceVersionOf.js';
import { ObjectMap } from './ObjectMap.js';
import { freshChange, relistDifference } from './relistDifference.js';
import type { InitialEventsPhase, ResumerPhase } from './ResumerPhase.js';
import { SerialSteps } from './SerialSteps.js';

/** A ResumeConfig with its defaults filled in. */
export type ResumerSettings<T> = Required<ResumeConfig<T>>;

/**
 * One subscription to a resumed watch: its phase (see {@link ResumerPhase} for the table of
 * transitions; each transition is a method named after it), and what it remembers across
 * phases: the cursor, what it delivered, its failures. Each subscriber gets its own.
 */
export class Resumer<T> {
  private phase: ResumerPhase<T> = { name: 'waiting', delay: 0 };
  /** What was delivered downstream, per key: what repeats and relists are compared against. */
  private readonly delivered = new ObjectMap<T>();
  private readonly steps: SerialSteps;
  /** `'0'` when the source options asked for "any version"; a fresh start otherwise. */
  private readonly freshVersion: string | undefined;
  /** The version to resume from: the last event's, once it is safe to resume from. */
  private cursor: string | undefined;
  /** The next request must be a list (or watch-list): at the start, and after 410 Gone. */
  private mustSync: boolean;
  /** No watch event since the last sync, which ended at `syncedAt` (scheduler time). */
  private idleSinceSync = false;
  private syncedAt = 0;
  /** The server refused a watch-list once: every sync lists from then on. */
  private watchListUnsupported = false;
  /** Failures since the backoff last reset (after 2 minutes up): sets the backoff delay. */
  private attempt = 0;
  /** Failures since the last event or successful list: what `maxRetries` bounds. */
  private consecutiveFailures = 0;
  private lastWasUnauthorized = false;

  constructor(
    private readonly source: WatchSource<T>,
    private readonly settings: ResumerSettings<T>,
    private readonly subscriber: Subscriber<WatchEvent<T>>,
  ) {
    this.steps = new SerialSteps(settings.scheduler);
    const given = source.options.resourceVersion;
    if (isFreshStart(given)) this.freshVersion = given || undefined;
    else this.cursor = given;
    this.mustSync = !given && settings.initialState !== 'none';
  }

  start(): () => void {
    this.resume();
    return () => {
      this.phase = { name: 'stopped' };
      this.steps.stop();
    };
  }

  // --- Transitions -------------------------------------------------------------------------

  /** waiting -> listing, initial-events or watching: what to do next follows from memory alone. */
  private resume(): void {
    if (this.mustSync || (this.cursor === undefined && this.delivered.size > 0)) {
      this.emitLifecycle({ type: 'relist-start' });
      if (this.settings.initialState === 'watch-list' && !this.watchListUnsupported) {
        this.openWatch(undefined, true);
      } else this.list();
    } else this.openWatch(this.cursor ?? this.freshVersion, false);
  }

  /** -> listing. */
  private list(): void {
    this.phase = { name: 'listing' };
    let answered = false;
    this.steps.run(this.source.list(), {
      next: (result) => {
        answered = true;
        this.listed(result);
      },
      error: (error) =>
        error instanceof WatchError ? this.failed(error, true) : this.subscriber.error(error),
      complete: () => {
        if (!answered) this.failed(this.error('the list ended without a result'), true);
      },
    });
  }

  /** listing -> watching from the list's version, once the difference is delivered. */
  private listed({ items, resourceVersion }: ListResult<T>): void {
    const fresh = new Map<string, T>();
    for (const item of items) fresh.set(this.settings.key(item), item);
    this.synced(fresh, endBookmark(resourceVersion, apiVersionOf(this.source.resource)));
    if (!this.subscriber.closed) this.resume();
  }

  /** -> watching, or -> initial-events for a watch-list (`sendInitialEvents`). */
  private openWatch(resourceVersion: string | undefined, initialEvents: boolean): void {
    const { options } = this.source;
    const patch: Partial<WatchOptions> = {
      resourceVersion,
      resourceVersionMatch: initialEvents ? 'NotOlderThan' : undefined,
      sendInitialEvents: initialEvents ? true : undefined,
      allowWatchBookmarks: initialEvents ? true : (options.allowWatchBookmarks ?? true),
      timeoutSeconds: options.timeoutSeconds ?? randomTimeoutSeconds(this.settings.random),
    };
    const startedAt = this.settings.scheduler.now();
    this.phase = initialEvents
      ? {
          name: 'initial-events',
          startedAt,
          connected: false,
          // Nothing delivered yet: no difference to wait for, the events go out as they come.
          fresh: this.delivered.size === 0 ? undefined : new Map(),
        }
      : { name: 'watching', startedAt, connected: false, burst: isFreshStart(resourceVersion) };
    this.emitLifecycle({ type: 'connecting', resourceVersion });
    this.steps.run(this.source.withOptions(patch), {
      next: (event) => this.received(event),
      error: (error) => this.ended(error),
      complete: () => this.ended(),
    });
  }

  /** An event on the open watch: initial-events or watching, unchanged unless it ends them. */
  private received(event: WatchEvent<T>): void {
    const { phase } = this;
    if (phase.name !== 'watching' && phase.name !== 'initial-events') return;
    // Every way out of ended() starts another step or stops, which closes this watch.
    if (event.type === 'ERROR') return this.ended(event.error);
    if (!phase.connected) {
      phase.connected = true;
      this.emitLifecycle({ type: 'connected' });
      this.consecutiveFailures = 0;
      this.lastWasUnauthorized = false;
    }
    if (phase.name === 'initial-events') return this.receivedInitialEvent(phase, event);
    this.idleSinceSync = false;
    // A burst ADDED is delivered (deduplicated) but its version may be newer than what is yet to
    // come; the first other event proves the burst is over and is a safe cursor.
    if (phase.burst && event.type === 'ADDED') return this.deliver(event);
    phase.burst = false;
    this.cursor = resourceVersionOf(event) ?? this.cursor;
    this.deliver(event);
  }

  /** initial-events: collects the fresh state; its end bookmark -> watching (same watch). */
  private receivedInitialEvent(phase: InitialEventsPhase<T>, event: WatchObjectEvent<T>): void {
    // The initial events' versions are no cursor; the end bookmark is, once they are all in.
    if (isInitialEventsEnd(event)) {
      const { startedAt, connected } = phase;
      this.phase = { name: 'watching', startedAt, connected, burst: false };
      return this.synced(phase.fresh, event);
    }
    if (event.type === 'BOOKMARK') return;
    const key = this.settings.key(event.object);
    const { fresh } = phase;
    if (fresh !== undefined) {
      if (event.type === 'DELETED') fresh.delete(key);
      else fresh.set(key, event.object);
      return;
    }
    // Streaming: the event itself goes out when it is what the difference would say (an ADDED
    // of a key not delivered, a DELETED), with no event made anew.
    if (event.type === 'DELETED' || (event.type === 'ADDED' && !this.delivered.has(key))) {
      return this.deliver(event, key);
    }
    const change = freshChange(this.delivered, key, event.object);
    if (change) this.deliver(change, key);
  }

  /**
   * The end of a sync (listed, or initial events ended): the difference, then the bookmark. No
   * `fresh` state: the initial events went out as they came, and nothing differs.
   */
  private synced(fresh: ReadonlyMap<string, T> | undefined, bookmark: WatchObjectEvent<T>): void {
    if (fresh !== undefined) {
      for (const [key, change] of relistDifference(this.delivered, fresh)) {
        this.deliver(change, key);
      }
    }
    this.subscriber.next(bookmark);
    this.cursor = resourceVersionOf(bookmark);
    this.mustSync = false;
    this.idleSinceSync = true;
    this.syncedAt = this.settings.scheduler.now();
    this.lastWasUnauthorized = false;
    this.consecutiveFailures = 0;
    this.emitLifecycle({ type: 'relist-end', count: (fresh ?? this.delivered).size });
  }

  /** The open watch ended: closed by the server, or failed. */
  private ended(error?: unknown): void {
    const { phase } = this;
    if (phase.name !== 'watching' && phase.name !== 'initial-events') return;
    const up = this.settings.scheduler.now() - phase.startedAt;
    if (up >= RESET_AFTER) this.attempt = 0;
    if (error !== undefined && !(error instanceof WatchError)) return this.subscriber.error(error);
    const reason = error ? 'error' : 'closed';
    if (phase.name === 'initial-events' && (!error || classifyFailure(error) === 'refused')) {
      return this.watchListRefused(reason, error);
    }
    if (!error && !phase.connected && up < SHORT_WATCH) return this.closedTooSoon(up);
    this.emitLifecycle({ type: 'disconnected', reason, error });
    if (error) return this.failed(error, phase.name === 'initial-events');
    this.closed();
  }

  /** initial-events -> listing, for good: the server does not do watch-list (client-go too). */
  private watchListRefused(reason: 'error' | 'closed', error: WatchError | undefined): void {
    this.emitLifecycle({ type: 'disconnected', reason, error });
    this.watchListUnsupported = true;
    this.wait(0, () => this.list());
  }

  /** watching -> waiting 0 ms -> watching from the cursor: the server ended it in due course. */
  private closed(): void {
    // The server accepted the watch: the credentials worked.
    this.lastWasUnauthorized = false;
    this.wait(0, () => this.resume());
  }

  /** watching -> waiting (backoff): ended without an event too soon to count as a close. */
  private closedTooSoon(up: number): void {
    const error = this.error(`very short watch: it ended after ${up} ms without an event`);
    this.emitLifecycle({ type: 'disconnected', reason: 'too-short', error });
    this.failed(error, false);
  }

  /**
   * A request failed (`syncing`: a list or a watch-list's initial events): -> stopped when
   * retrying cannot help, else -> waiting (backoff), or at once for 410 and a first 401.
   */
  private failed(error: WatchError, syncing: boolean): void {
    const kind = classifyFailure(error);
    const repeatedUnauthorized = this.lastWasUnauthorized;
    this.lastWasUnauthorized = kind === 'unauthorized';
    switch (kind) {
      case 'refused':
        return this.settings.onRefused === 'retry' ? this.backOff(error) : this.stop(error);
      case 'unauthorized':
        if (!repeatedUnauthorized) return this.backOff(error, 0);
        return this.settings.onRefused === 'retry' ? this.backOff(error) : this.stop(error);
      case 'expired':
        return this.expired(error, syncing);
      case 'transient':
        return this.backOff(error);
    }
  }

  /** 410 Gone: -> waiting, then listing; backs off when nothing moved since the last sync. */
  private expired(error: WatchError, syncing: boolean): void {
    this.emitLifecycle({ type: 'expired' });
    if (this.settings.onExpired === 'error') return this.stop(error);
    this.mustSync = true;
    // A 410 right after a sync, before anything moved, would relist in a loop: back off. Long
    // after it (an outage spent backing off), relist at once: a second backoff helps nobody.
    const sinceSync = this.settings.scheduler.now() - this.syncedAt;
    if (syncing || (this.idleSinceSync && sinceSync < SHORT_WATCH)) return this.backOff(error);
    this.wait(0, () => this.resume());
  }

  /** -> waiting `delay` (default: the backoff of this attempt), or -> stopped past maxRetries. */
  private backOff(error: WatchError, delay?: number): void {
    const attempt = ++this.attempt;
    if (++this.consecutiveFailures > this.settings.maxRetries) return this.stop(error);
    const wait = delay ?? backoffDelay(attempt, this.settings.random, error.retryAfterSeconds);
    this.emitLifecycle({ type: 'backoff', delay: wait, attempt, error });
    this.wait(wait, () => this.resume());
  }

  /** -> waiting; `then` is the transition out of it. */
  private wait(delay: number, then: () => void): void {
    this.phase = { name: 'waiting', delay };
    this.steps.later(delay, then);
  }

  /** -> stopped: the stream errors. */
  private stop(error: WatchError): void {
    this.phase = { name: 'stopped' };
    this.subscriber.error(error);
  }

  // --- Output --------------------------------------------------------------------------------

  /**
   * Delivers an event downstream and records it, unless it repeats what was delivered. `key` is
   * the event object's key when the caller has made it already.
   */
  private deliver(event: WatchObjectEvent<T>, key?: string): void {
    if (event.type === 'DELETED') this.delivered.delete(key ?? this.settings.key(event.object));
    else if (event.type !== 'BOOKMARK') {
      const recorded = this.delivered.setUnlessRepeat(
        key ?? this.settings.key(event.object),
        event.object,
        resourceVersionOf(event),
      );
      if (!recorded) return;
    }
    this.subscriber.next(event);
  }

  private emitLifecycle(event: LifecycleEvent): void {
    if (!this.subscriber.closed) this.settings.onLifecycle(event);
  }

  private error(message: string): WatchError {
    const { resource, options } = this.source;
    return WatchError.stream(message, describeResourcePath(resource, options.namespace));
  }
}

/**
 * Whether a watch from `resourceVersion` starts afresh: none (`''` is not sent), or "0", which
 * means "any version" to the server. Either way it answers with an unordered burst of ADDED.
 */
function isFreshStart(resourceVersion: string | undefined): boolean {
  return !resourceVersion || resourceVersion === '0';
}
