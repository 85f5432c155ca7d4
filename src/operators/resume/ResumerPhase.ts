/**
 * Where one resumed watch is: the states of client-go's Reflector, written out as kube-rs's
 * watcher writes its own (`Empty`, `InitPage`, `InitListed`, `Watching`...). Each transition is
 * a method of `Resumer` named after it, and the marble specs of `resumeFromResourceVersion` are
 * organised by this table:
 *
 * | from             | transition                   | to                                       |
 * |------------------|------------------------------|------------------------------------------|
 * | waiting          | resume                       | listing, initial-events or watching      |
 * | listing          | listed                       | watching (from the list's version)       |
 * | initial-events   | receivedInitialEvent (end)   | watching (the same watch goes on)        |
 * | initial-events   | watchListRefused             | waiting 0 ms, then listing, for good     |
 * | watching         | closed                       | waiting 0 ms, then watching (cursor)     |
 * | watching         | closedTooSoon                | waiting (backoff)                        |
 * | any request      | expired (410)                | waiting (0 ms or backoff), then listing  |
 * | any request      | failed: transient, first 401 | waiting (backoff; 0 ms for the 401)      |
 * | any request      | failed: refused (retry)      | waiting (backoff), with onRefused: retry |
 * | any request      | failed: refused, maxRetries  | stopped (the stream errors)              |
 * | any              | unsubscribe                  | stopped                                  |
 *
 * What to do when a wait ends (`resume`) follows from what the resumer remembers across phases:
 * a sync is due (at the start, after 410), or there is no safe cursor but objects were
 * delivered; otherwise it watches from the cursor.
 *
 * @example
 * const phase: ResumerPhase<V1Pod> = { name: 'waiting', delay: 800 };
 */
export type ResumerPhase<T> =
  WaitingPhase | ListingPhase | InitialEventsPhase<T> | WatchingPhase | StoppedPhase;

/** A timer runs: a backoff, or 0 ms between two requests (always through the scheduler). */
export interface WaitingPhase {
  readonly name: 'waiting';
  readonly delay: number;
}

/** A list is in flight (the initial state, or a relist after 410 Gone). */
export interface ListingPhase {
  readonly name: 'listing';
}

/** What every open watch knows about itself. */
interface OpenWatch {
  /** When it was opened, on the scheduler's clock. */
  readonly startedAt: number;
  /** Its first event has arrived: the server accepted the watch. */
  connected: boolean;
}

/** A watch-list (`sendInitialEvents`) is open and its initial events are still arriving. */
export interface InitialEventsPhase<T> extends OpenWatch {
  readonly name: 'initial-events';
  /**
   * A resync (something had been delivered): the fresh state so far, by key, in the order it
   * came; its difference goes out at the end bookmark, deletions first. Undefined when nothing
   * had been delivered: each initial event then goes out as it comes, and what was delivered is
   * the fresh state, so no second map of every object is kept (it made a watch-list sync slower
   * than a list).
   */
  readonly fresh: Map<string, T> | undefined;
}

/** A watch is open past any initial events: each event moves the cursor. */
export interface WatchingPhase extends OpenWatch {
  readonly name: 'watching';
  /**
   * The unordered synthetic ADDED of a watch without a version are still arriving: their
   * versions are no safe cursor until another event comes.
   */
  burst: boolean;
}

/** Unsubscribed, or errored: nothing more happens. */
export interface StoppedPhase {
  readonly name: 'stopped';
}
