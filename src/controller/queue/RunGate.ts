/**
 * What may hold a ready key back before its run starts (the controller's read-your-own-writes):
 * the queue asks `blocked(key)` when the key is next to start; a blocked key leaves the ready
 * heap and waits, not taking a worker or a token, until the gate calls the listener given to
 * `listen` with its key. Then it is ready again, in its old place (it has been ready since).
 *
 * ```
 * key a ready:  -a----------------
 * gate:         (a blocked)--open(a)
 * run of a:     -----------------r
 * ```
 *
 * @example
 * const gate: RunGate = {
 *   blocked: (key) => pending.has(key),
 *   takeStale: () => false,
 *   listen: (opened) => void (onSeen = opened),
 * };
 */
export interface RunGate {
  /** Whether `key` must wait before its next run starts. */
  blocked(key: string): boolean;
  /** Whether the run of `key` that starts now reads past a wait that timed out (once per wait). */
  takeStale(key: string): boolean;
  /** The queue's listener: called with a key whose gate opened. */
  listen(opened: (key: string) => void): void;
}
