import type { SchedulerLike } from 'rxjs';
import type { Logger } from '../types.js';

/**
 * Configuration of `leaderElection`: which Lease, who this replica is, and client-go's three
 * durations. `renewDeadlineMs` must be below `leaseDurationMs` (the margin that keeps a leader
 * that cannot renew from acting after a standby may have taken over) and `retryPeriodMs` below
 * `renewDeadlineMs` (so that a leader gets more than one try before its deadline).
 *
 * @example
 * const config: LeaderElectionConfig = {
 *   namespace: 'operators',
 *   name: 'my-operator',
 *   identity: process.env.POD_NAME ?? `${hostname()}-${process.pid}`,
 * };
 */
export interface LeaderElectionConfig {
  /** The namespace of the Lease (a DNS-1123 label). */
  namespace: string;
  /** The name of the Lease (a DNS-1123 subdomain), the same for every replica. */
  name: string;
  /** This replica's name in `spec.holderIdentity`: unique per replica (a pod name). */
  identity: string;
  /** How long a standby waits, from when it saw the lease last change, before taking it. 15 000. */
  leaseDurationMs?: number;
  /** How long a leader goes on acting without a successful renewal. 10 000. */
  renewDeadlineMs?: number;
  /** How often the lease is renewed by the leader and tried by a standby. 2 000. */
  retryPeriodMs?: number;
  /** Timers (virtual time in tests). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /**
   * The monotonic clock expiry is judged by, in ms. Default `performance.now()`, or the
   * scheduler's `now()` when a scheduler is given (so virtual time drives both).
   */
  now?: () => number;
  /** Told about failed reads and writes of the lease (`warn`) and each transition (`debug`). */
  logger?: Logger;
}
