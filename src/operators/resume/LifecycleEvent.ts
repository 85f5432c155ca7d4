import type { WatchError } from '../../WatchError.js';

/**
 * What `ResumeConfig.onLifecycle` is told, in order: each step of a resumed watch.
 *
 * @example
 * resumeFromResourceVersion({
 *   onLifecycle: (e: LifecycleEvent) => e.type === 'backoff' && console.error(`retry in ${e.delay} ms`),
 * });
 */
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
