/**
 * What a Tenant should have, as plain objects: the pure half of the tenant-operator, specified
 * without a server (desired.spec.ts). The reconcile (tenantOperator.ts) only writes these.
 *
 *   Tenant team-a ──► Namespace tenant-team-a          (owned by the Tenant: GC deletes it)
 *                 ├─► ResourceQuota tenant-quota       (in it, owned: from spec.quota)
 *                 ├─► RoleBinding tenant-admins        (in it, owned: ClusterRole admin)
 *                 └─► tenant-system/tenant-registry    (shared, owned by nobody: the finalizer
 *                     data["team-a"] = tenant-team-a    removes the entry on deletion)
 */
import {
  controllerReference,
  resource,
  setCondition,
  type KubernetesObject,
} from '../../src/index.js';
import type { Tenant } from './tenant.types.js';

/** The field manager of every write: `kubectl get ... --show-managed-fields` names it. */
export const FIELD_MANAGER = 'tenant-operator';
/** The finalizer that keeps a Tenant until its registry entry is gone. */
export const CLEANUP_FINALIZER = 'tenants.example.com/cleanup';
/** The label on what the operator made: its watches select by it, so they see nothing else. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'tenant-operator' };
/** The shared registry: namespace and name of the ConfigMap listing every tenant's namespace. */
export const REGISTRY = { namespace: 'tenant-system', name: 'tenant-registry' };
export const QUOTA_NAME = 'tenant-quota';
export const ROLE_BINDING_NAME = 'tenant-admins';

/** ResourceQuotas (`/api/v1/resourcequotas`): kube-rx has no ref of its own for them. */
export const resourcequotas = resource<
  KubernetesObject & { spec?: { hard?: Record<string, string> } }
>('v1', 'resourcequotas', { kind: 'ResourceQuota' });
/** RoleBindings (`/apis/rbac.authorization.k8s.io/v1/rolebindings`). */
export const rolebindings = resource<KubernetesObject & { subjects?: { name: string }[] }>(
  'rbac.authorization.k8s.io/v1',
  'rolebindings',
  { kind: 'RoleBinding' },
);

/** `tenant-<name>`: the tenant's namespace. */
export function namespaceOf(tenant: Tenant): string {
  return `tenant-${tenant.metadata!.name!}`;
}

/** The metadata every child shares: the label, and the Tenant as its controller owner. */
function childMeta(tenant: Tenant, name: string, namespace?: string) {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: { ...MANAGED_BY, 'tenants.example.com/name': tenant.metadata!.name! },
    // Cluster-scoped owner: any dependent, namespaced or not, may name it.
    ownerReferences: [controllerReference(tenant)],
  };
}

/** The tenant's Namespace, owned by the Tenant so the garbage collector deletes it after it. */
export function desiredNamespace(tenant: Tenant) {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: childMeta(tenant, namespaceOf(tenant)) };
}

/**
 * The ResourceQuota from spec.quota (`requests.cpu`, `requests.memory`, `pods`), or `undefined`
 * when the tenant asked for no limit (then none is written).
 */
export function desiredQuota(tenant: Tenant) {
  const { cpu, memory, pods } = tenant.spec.quota ?? {};
  const hard: Record<string, string> = {};
  if (cpu !== undefined) hard['requests.cpu'] = cpu;
  if (memory !== undefined) hard['requests.memory'] = memory;
  if (pods !== undefined) hard.pods = String(pods);
  if (Object.keys(hard).length === 0) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: childMeta(tenant, QUOTA_NAME, namespaceOf(tenant)),
    spec: { hard },
  };
}

/** The RoleBinding of the `admin` ClusterRole to the owner and the admins (each once). */
export function desiredRoleBinding(tenant: Tenant) {
  const users = [...new Set([tenant.spec.owner, ...(tenant.spec.admins ?? [])])];
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: childMeta(tenant, ROLE_BINDING_NAME, namespaceOf(tenant)),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    subjects: users.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
  };
}

/**
 * The merge patch of the registry's data: the tenant's entry set to its namespace, or removed
 * (`null`). A merge patch, not an apply: with one field manager, an apply of one key would drop
 * the keys of every other tenant the same manager applied before.
 */
export function registryPatch(tenant: Tenant, present: boolean) {
  return { data: { [tenant.metadata!.name!]: present ? namespaceOf(tenant) : null } };
}

/** Why the tenant is or is not Ready, in metav1.Condition's words. */
export type ReadyReason = 'Provisioned' | 'ProvisioningFailed';

/**
 * The status to write after a run: the namespace, the Ready condition (its transition time kept
 * when its status did not change), and the generation it describes. `undefined` when the status
 * already says exactly this, so the run writes nothing (and triggers nothing).
 */
export function desiredStatus(
  tenant: Tenant,
  outcome: { ready: true } | { ready: false; message: string },
  now: Date = new Date(),
): NonNullable<Tenant['status']> | undefined {
  const generation = tenant.metadata?.generation;
  const current = tenant.status ?? {};
  const conditions = setCondition(
    current.conditions,
    outcome.ready
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'Provisioned',
          message: `namespace ${namespaceOf(tenant)} provisioned`,
          observedGeneration: generation,
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: 'ProvisioningFailed',
          message: outcome.message,
          observedGeneration: generation,
        },
    now,
  );
  const namespace = outcome.ready ? namespaceOf(tenant) : current.namespace;
  if (
    conditions === current.conditions &&
    current.observedGeneration === generation &&
    current.namespace === namespace
  )
    return undefined;
  return {
    ...(namespace === undefined ? {} : { namespace }),
    observedGeneration: generation,
    conditions: conditions as NonNullable<Tenant['status']>['conditions'],
  };
}
