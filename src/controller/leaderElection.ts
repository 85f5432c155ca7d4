import { assertObjectArgument } from '../objects/argumentChecks.js';
import type { Observable } from 'rxjs';
import type { Cluster } from '../types.js';
import { electionSettings } from './election/electionSettings.js';
import { electionOver } from './election/electionOver.js';
import { leaseApi } from './election/leaseApi.js';
import type { LeaderElectionConfig } from './LeaderElectionConfig.js';

/**
 * Leader election over a `coordination.k8s.io/v1` Lease, client-go's algorithm: `true` while
 * this replica leads, `false` while it does not.
 *
 * - It emits `false` at once (not leading yet), then only changes: `true` when it acquired the
 *   lease, `false` when it lost it. It never completes and never errors: failures to read or
 *   write the lease are retried every `retryPeriodMs` (and told to `logger`).
 * - A standby takes the lease when it is free, or expired: `leaseDurationMs` after this process
 *   saw it last change (on its own monotonic clock; the timestamps in the lease are never
 *   compared with ours). The leader renews it every `retryPeriodMs` and emits `false` when no
 *   renewal has succeeded for `renewDeadlineMs`, or at once when it sees another holder; it
 *   then goes on as a standby and may lead again later. Every write carries the version read:
 *   a 409 means another replica wrote first, so the lease is read again, never overwritten.
 * - Unsubscribing while leading releases the lease (holder cleared) so that a standby takes
 *   over at its next try instead of waiting for the lease to expire.
 * - One call is one candidate: its subscribers share it (the last value is replayed to a late
 *   one); it starts with the first subscriber and stops (releasing) with the last.
 * - Invalid config throws at once: a `RangeError` when `renewDeadlineMs >= leaseDurationMs` or
 *   `retryPeriodMs >= renewDeadlineMs`, a `TypeError` for an empty identity, a `WatchError`
 *   BAD_REQUEST for an invalid namespace or name.
 *
 * Needs RBAC `get`, `create` and `update` on `leases` (group `coordination.k8s.io`) in its
 * namespace.
 *
 * ```
 * lease:   free ------ held by us ---------x (renewals fail) ----- free ---- ours again
 * output:  f--t----------------------------f(renewDeadline)------------------t
 * ```
 *
 * @example
 * const leading$ = leaderElection(kc, {
 *   namespace: 'operators',
 *   name: 'my-operator',
 *   identity: process.env.POD_NAME!,
 * });
 * controller({ cluster: kc, for: { resource: deployments }, reconcile })
 *   .pipe(whileLeader(leading$))
 *   .subscribe();
 */
export function leaderElection(
  cluster: Cluster,
  config: LeaderElectionConfig,
): Observable<boolean> {
  // Checked at once, as the rest of the config: no lease request for a cluster that is not one.
  assertObjectArgument('leaderElection', 'cluster', cluster);
  assertObjectArgument('leaderElection', 'config', config);
  const settings = electionSettings(config);
  const api = leaseApi(cluster, config.namespace, config.name, config.logger);
  return electionOver(api, settings);
}
