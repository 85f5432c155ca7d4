// The leader chaos with a real controller() as the work of the leader:
//   npm run chaos:leader -- --act bench/chaos/leader/controllerActing.ts
// The controller watches the chaos namespace's Leases (the one being elected over, so there is
// always a primary object) and reconciles every 50 ms (resyncMs): each run is an `act`
// heartbeat, so the orchestrator's "two replicas acting" counts controller runs, and losing
// leadership must stop them (whileLeader unsubscribes the controller: its runs' signals abort).
import type { KubeConfig } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import { controller, resource } from '../../../src/index.js';
import type { ActingReport } from './acting.js';

const leases = resource('coordination.k8s.io/v1', 'leases');

export function act(report: ActingReport, cluster: KubeConfig): Observable<unknown> {
  return new Observable((subscriber) => {
    report('act-start');
    const runs = controller({
      cluster,
      for: { resource: leases, options: { namespace: 'chaos' } },
      reconcile: async () => report('act'),
      resyncMs: 50,
      rateLimit: false,
    }).subscribe(subscriber);
    return () => {
      runs.unsubscribe();
      report('act-stop');
    };
  });
}
