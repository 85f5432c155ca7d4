import type { V1Deployment, V1LabelSelector, V1Pod } from '@kubernetes/client-node';
import { defaultKey, namespacedKey } from '../../operators/internal/events.js';

/**
 * Finds the deployment a pod belongs to, among the deployments of its namespace:
 * 1. its controlling ReplicaSet is named `{deployment}-{pod-template-hash}` (how the Deployment
 *    controller names them), so the name minus its last segment is the deployment's;
 * 2. a pod with no controller at all (made by hand, or whose ReplicaSet is gone) belongs to the
 *    deployment whose selector matches its labels.
 * A pod controlled by something else (StatefulSet, Job...) belongs to no deployment.
 *
 * @example
 * const owners = new DeploymentIndex(store.store('deployments').values());
 * owners.ownerOf(pod); // 'shop/frontend' or undefined
 */
export class DeploymentIndex {
  private readonly byKey = new Map<string, V1Deployment>();
  private readonly byNamespace = new Map<string, V1Deployment[]>();

  constructor(deployments: Iterable<V1Deployment>) {
    for (const d of deployments) {
      const ns = d.metadata?.namespace ?? '';
      this.byKey.set(defaultKey(d), d);
      const list = this.byNamespace.get(ns) ?? [];
      list.push(d);
      this.byNamespace.set(ns, list);
    }
  }

  /** The `namespace/name` of the pod's deployment, or undefined. */
  ownerOf(pod: V1Pod): string | undefined {
    const ns = pod.metadata?.namespace ?? '';
    const controller =
      pod.metadata?.ownerReferences?.find((o) => o.controller) ??
      pod.metadata?.ownerReferences?.[0];
    if (controller?.kind === 'ReplicaSet') {
      const dash = controller.name.lastIndexOf('-');
      const candidate = namespacedKey(
        ns,
        dash > 0 ? controller.name.slice(0, dash) : controller.name,
      );
      if (this.byKey.has(candidate)) return candidate;
    } else if (controller) return undefined;
    const labels = pod.metadata?.labels ?? {};
    const match = this.byNamespace.get(ns)?.find((d) => selects(d.spec?.selector, labels));
    return match ? defaultKey(match) : undefined;
  }
}

/**
 * Whether a label selector selects `labels` (matchLabels and matchExpressions: In, NotIn, Exists,
 * DoesNotExist). An empty or missing selector selects nothing, as for a Deployment.
 *
 * @example
 * selects({ matchLabels: { app: 'web' } }, { app: 'web', tier: 'front' }); // true
 */
export function selects(
  selector: V1LabelSelector | undefined,
  labels: Record<string, string>,
): boolean {
  const matchLabels = Object.entries(selector?.matchLabels ?? {});
  const expressions = selector?.matchExpressions ?? [];
  if (matchLabels.length === 0 && expressions.length === 0) return false;
  if (!matchLabels.every(([k, v]) => labels[k] === v)) return false;
  return expressions.every(({ key, operator, values = [] }) => {
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (operator) {
      case 'In':
        return has && values.includes(labels[key]);
      case 'NotIn':
        return !has || !values.includes(labels[key]);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return false;
    }
  });
}
