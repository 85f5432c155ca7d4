/** A key no structure holds: it waits for a trigger (and may be dropped from the queue's Map). */
export const IDLE = 0;
/** A key waiting for a time in the timer heap: debounce, requeue or backoff. */
export const WAITING = 1;
/** A key in the ready heap. */
export const READY = 2;
/** A key whose run is in flight. */
export const RUNNING = 3;
/** A ready key its RunGate holds back (read-your-own-writes): it waits for the gate to open. */
export const HELD = 4;

/** What a run in flight needs to be cancelled from outside (unsubscribe, drain timeout). */
export interface Cancellable {
  cancel(): void;
}

/**
 * The one slot a key has in the queue, as kube-rs's scheduler keeps one entry per object. Times
 * are whole milliseconds since the queue started and -1 stands for "none", so every field stays
 * a small integer (V8 keeps it in the object, no boxed double per update).
 */
export class KeyState {
  /** IDLE, WAITING, READY, RUNNING or HELD. */
  phase = IDLE;
  /** Triggered while running: runs once more after this run ends. */
  dirty = false;
  /** In a heap, the time it is ordered by: when it becomes ready (timers) or became ready. */
  at = 0;
  /** Ties on `at` go to the key that entered its heap first. */
  seq = 0;
  /** Its place in the heap it is in (-1: none), so a timer can move or leave in O(log n). */
  index = -1;
  /** The requeue or retry time its last run asked for (-1: none); the earliest time wins. */
  scheduledAt = -1;
  /** The time of its next counted retry while it backs off (-1: not backing off). */
  retryAt = -1;
  /** Consecutive counted failures. */
  failures = 0;
  /** Its run in flight. */
  run: Cancellable | null = null;
  /** Its run in flight was started by the loop's `express`, outside `concurrency`. */
  express = false;

  constructor(readonly key: string) {}
}
