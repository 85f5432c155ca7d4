import type {
  V1Deployment,
  V1LabelSelector,
  V1ObjectMeta,
  V1Pod,
  V1ReplicaSet,
} from '@kubernetes/client-node';
import { defaultKey, namespacedKey } from '../../objects/defaultKey.js';
import { matchesLabelSelector } from '../../index.js';
import type { Store } from '../../index.js';

/** The index name the dashboard's stores file objects under their owners' uids with. */
export const BY_OWNER = 'byOwner';

/**
 * The deployment (`namespace/name`) of every pod reachable down the owner indexes (`ownerIndex`):
 * each deployment's ReplicaSets are `replicaSets.byIndex('byOwner', deployment uid)`, their pods
 * `pods.byIndex('byOwner', replicaSet uid)`, following controller references only. Costs
 * O(log n + k) per deployment and ReplicaSet, never a scan of the pods per deployment. Pods it
 * does not reach (their ReplicaSet not watched, or none) are left to {@link DeploymentIndex}.
 *
 * @example
 * const owners = podOwnersByIndex(deployments, store.store('replicasets'), store.store('pods'));
 * owners.get(pod); // 'shop/frontend' or undefined
 */
export function podOwnersByIndex(
  deployments: readonly V1Deployment[],
  replicaSets: Store<V1ReplicaSet, typeof BY_OWNER>,
  pods: Store<V1Pod, typeof BY_OWNER>,
): Map<V1Pod, string> {
  const owners = new Map<V1Pod, string>();
  for (const d of deployments) {
    const uid = d.metadata?.uid;
    if (!uid) continue;
    const key = defaultKey(d);
    for (const rs of replicaSets.byIndex(BY_OWNER, uid)) {
      const rsUid = rs.metadata?.uid;
      if (!rsUid || controllerUid(rs.metadata) !== uid) continue;
      for (const pod of pods.byIndex(BY_OWNER, rsUid)) {
        if (controllerUid(pod.metadata) === rsUid) owners.set(pod, key);
      }
    }
  }
  return owners;
}

function controllerUid(metadata: V1ObjectMeta | undefined): string | undefined {
  return metadata?.ownerReferences?.find((o) => o.controller)?.uid;
}

/**
 * Finds the deployment a pod belongs to, among the deployments of its namespace:
 * 1. its controlling ReplicaSet is named `{deployment}-{pod-template-hash}` (how the Deployment
 *    controller names them), so the name minus its last segment is the deployment's;
 * 2. a pod with no controller at all (made by hand, or whose ReplicaSet is gone) belongs to the
 *    deployment whose selector matches its labels.
 * A pod controlled by anything else (StatefulSet, Job..., or a ReplicaSet that is not named after
 * a deployment of its namespace) belongs to no deployment, whatever its labels.
 *
 * @example
 * const owners = new DeploymentIndex(store.store('deployments').values());
 * owners.ownerOf(pod); // 'shop/frontend' or undefined
 */
export class DeploymentIndex {
  private readonly keys = new Set<string>();
  private readonly byNamespace = new Map<string, V1Deployment[]>();

  constructor(deployments: Iterable<V1Deployment>) {
    for (const d of deployments) {
      const ns = d.metadata?.namespace ?? '';
      this.keys.add(defaultKey(d));
      const list = this.byNamespace.get(ns) ?? [];
      list.push(d);
      this.byNamespace.set(ns, list);
    }
  }

  /** The `namespace/name` of the pod's deployment, or undefined. */
  ownerOf(pod: V1Pod): string | undefined {
    const ns = pod.metadata?.namespace ?? '';
    const controller = pod.metadata?.ownerReferences?.find((o) => o.controller);
    if (controller) {
      if (controller.kind !== 'ReplicaSet') return undefined;
      const dash = controller.name.lastIndexOf('-');
      if (dash <= 0) return undefined; // not named {deployment}-{hash}: not a Deployment's
      const key = namespacedKey(ns, controller.name.slice(0, dash));
      return this.keys.has(key) ? key : undefined;
    }
    const labels = pod.metadata?.labels ?? {};
    const match = this.byNamespace.get(ns)?.find((d) => selects(d.spec?.selector, labels));
    return match ? defaultKey(match) : undefined;
  }
}

/**
 * Whether a Deployment's selector selects `labels`: {@link matchesLabelSelector}, but an empty or
 * missing selector selects nothing (the Deployment controller refuses to select every pod), and
 * so does one that cannot be read (the API server validated it; a dashboard does not crash on it).
 *
 * @example
 * selects({ matchLabels: { app: 'web' } }, { app: 'web', tier: 'front' }); // true
 * selects({}, { app: 'web' }); // false
 */
export function selects(
  selector: V1LabelSelector | undefined,
  labels: Record<string, string>,
): boolean {
  const empty =
    Object.keys(selector?.matchLabels ?? {}).length === 0 &&
    (selector?.matchExpressions ?? []).length === 0;
  if (empty) return false;
  try {
    return matchesLabelSelector(selector, labels);
  } catch {
    return false;
  }
}
