import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { controller, type Cluster, type ReconcileReport } from '../../index.js';
import { deployments, pods, replicasets } from '../../objects/resources.js';
import type { ClusterSimulator } from './ClusterSimulator.js';

/**
 * The demo cluster's deployment controller, a kube-rx `controller()` over the demo server: one
 * key per Deployment, triggered by the Deployment (a new generation: `kubectl scale`), by its
 * ReplicaSet (`owns`) and by its pods (mapped through their ReplicaSet's name,
 * `{deployment}-{pod-template-hash}`), and each run hands the Deployment as the store holds it to
 * `simulator.reconcile`, which creates and terminates pods until `spec.replicas` run.
 *
 * ```
 * kubectl scale deploy frontend --replicas=5 ─► MODIFIED (generation 2) ─► run shop/frontend
 *   ─► 2 pods created ─► ADDED pod x2 ─► run shop/frontend (coalesced) ─► nothing to do
 * kubectl delete pod frontend-… ─► DELETED pod ─► run shop/frontend ─► a replacement
 * ```
 *
 * @example
 * const subscription = demoDeploymentController(demo.kubeConfig(), simulator).subscribe();
 */
export function demoDeploymentController(
  cluster: Cluster,
  simulator: ClusterSimulator,
): Observable<ReconcileReport> {
  return controller<V1Deployment>({
    cluster,
    for: { resource: deployments },
    owns: [{ resource: replicasets }],
    watches: [{ resource: pods, map: (pod: V1Pod) => deploymentKeysOf(pod) }],
    reconcile: async (deployment, { key }) => simulator.reconcile(key, deployment),
    // The demo server is in this process and its pods change a few times a second: no need to
    // hold runs back (client-go's default 10 per second would make a scale to 20 visibly slow).
    rateLimit: false,
    // A run that trips (a pod the kubelet part just deleted) is retried soon, not in minutes.
    backoff: { initialMs: 100, maxMs: 5_000 },
  });
}

/** The deployment key of a pod controlled by a ReplicaSet named `{deployment}-{hash}`. */
export function deploymentKeysOf(pod: V1Pod): string[] {
  const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller);
  if (owner?.kind !== 'ReplicaSet') return [];
  const dash = owner.name.lastIndexOf('-');
  if (dash <= 0) return [];
  return [`${pod.metadata?.namespace}/${owner.name.slice(0, dash)}`];
}
