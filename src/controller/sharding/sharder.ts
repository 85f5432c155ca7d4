import { Observable } from 'rxjs';
import type { SharderConfig } from './SharderConfig.js';
import { SharderRun } from './SharderRun.js';

/**
 * The sharder, run while this member holds the ring's sharder Lease (`whileLeader`): it watches
 * the members' Leases (label-selected) and the primary objects metadata-only, and writes each
 * object's assignment label. Stateless beyond what it watches: a new sharder continues from the
 * labels. Unsubscribing stops it at once: no write starts after; those in flight are let end
 * (a request sent may be applied anyway), its claims held until they did, then left to expire.
 *
 * For each object, with `desired` its member on the hash ring of live members:
 * - no assignment (or a label naming something that cannot be a member): assign `desired`;
 * - assigned to a live member other than `desired` and not draining: mark it draining (that
 *   member stops the key and clears both labels; the object is then unassigned);
 * - assigned to a member that is not live: once the sharder holds that member's Lease (expired
 *   or freed by its own observation, or created: see {@link Reapers}), assign `desired` at once.
 *
 * A live member holds its own Lease by an incarnation of itself (`<member>/<incarnation>`) and
 * the sharder does not hold it. Every write is a merge patch carrying the resourceVersion the
 * sharder saw: a conflict means a stale view, and the next event brings the next pass.
 *
 * @example
 * sharder(config).pipe(whileLeader(leaderElection(kc, { namespace, name: ring, identity })));
 */
export function sharder(config: SharderConfig): Observable<never> {
  return new Observable<never>(() => {
    const run = new SharderRun(config);
    return () => run.close();
  });
}
