/**
 * The tenant-operator as a kube-rx `controller()`: one key per Tenant, triggered by the Tenant
 * and by the children it owns (a deleted or edited Namespace, quota or RoleBinding is put back).
 *
 *   tenants ─────────────────────────────────┐
 *   namespaces, resourcequotas, rolebindings ┼─► reconcileQueue ─► finalizer ─► provision
 *     (owns: their controller ownerReference) ┘                              └► cleanup
 *
 * Every write is server-side apply under the field manager `tenant-operator` (the registry entry
 * excepted: see `registryPatch`), and every decision is an Event on the Tenant.
 */
import type { Observable } from 'rxjs';
import {
  configmaps,
  controller,
  finalizer,
  namespaces,
  WatchError,
  type Action,
  type ControllerConfig,
  type ControllerContext,
  type ReconcileReport,
} from '../../src/index.js';
import {
  CLEANUP_FINALIZER,
  desiredNamespace,
  desiredQuota,
  desiredRoleBinding,
  desiredStatus,
  FIELD_MANAGER,
  MANAGED_BY,
  namespaceOf,
  QUOTA_NAME,
  REGISTRY,
  registryPatch,
  resourcequotas,
  rolebindings,
} from './desired.js';
import { tenants, type Tenant } from './tenant.types.js';

/** What a reconcile needs of its context (a `ControllerContext`; a stub in desired.spec.ts). */
export type TenantContext = Pick<ControllerContext, 'api' | 'recorder' | 'resource' | 'signal'>;

const APPLY = { fieldManager: FIELD_MANAGER, force: true } as const;

/** Sets or removes the tenant's entry in the shared registry, creating the ConfigMap if absent. */
async function writeRegistry(tenant: Tenant, ctx: TenantContext, present: boolean) {
  const api = ctx.api(configmaps);
  const { namespace, name } = REGISTRY;
  try {
    await api.patch(name, registryPatch(tenant, present), { namespace, type: 'merge' });
  } catch (error) {
    if (!(error instanceof WatchError && error.statusCode === 404)) throw error;
    // Nothing to remove from a registry that is not there; otherwise the first tenant makes it.
    // A concurrent create fails with a conflict: the run backs off and patches next time.
    if (!present) return;
    await api.create(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels: MANAGED_BY },
        data: { [tenant.metadata!.name!]: namespaceOf(tenant) },
      },
      { namespace },
    );
  }
}

/** Brings the tenant's namespace, quota, RoleBinding and registry entry to what it asks for. */
async function provision(tenant: Tenant, ctx: TenantContext): Promise<void> {
  const namespace = namespaceOf(tenant);
  await ctx.api(namespaces).apply(desiredNamespace(tenant), APPLY);
  const quota = desiredQuota(tenant);
  if (quota) await ctx.api(resourcequotas).apply(quota, APPLY);
  else {
    // No quota asked for (any more): one left from before goes.
    await ctx
      .api(resourcequotas)
      .delete(QUOTA_NAME, { namespace })
      .catch((error: unknown) => {
        if (!(error instanceof WatchError && error.statusCode === 404)) throw error;
      });
  }
  await ctx.api(rolebindings).apply(desiredRoleBinding(tenant), APPLY);
  await writeRegistry(tenant, ctx, true);
}

/** Writes the status through the status subresource, when it changes. */
async function writeStatus(tenant: Tenant, ctx: TenantContext, status: Tenant['status']) {
  if (status === undefined) return false;
  await ctx.api(tenants).status.apply(
    {
      apiVersion: tenant.apiVersion,
      kind: tenant.kind,
      metadata: { name: tenant.metadata!.name! },
      status,
    },
    APPLY,
  );
  return true;
}

/**
 * One run for a Tenant: the finalizer first (so the registry entry is never written for a Tenant
 * that could vanish without its cleanup), then provision and status; on deletion, the registry
 * entry removed (the garbage collector deletes the namespace, quota and RoleBinding after).
 */
export function reconcileTenant(
  tenant: Tenant | undefined,
  ctx: TenantContext,
): Promise<Action | void> {
  return finalizer(ctx, tenant, CLEANUP_FINALIZER, {
    apply: async (current) => {
      try {
        await provision(current, ctx);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        ctx.recorder.record(current, {
          type: 'Warning',
          reason: 'ProvisioningFailed',
          action: 'Provision',
          note: message,
        });
        // Best effort: a failed status write must not hide why the run failed.
        await writeStatus(current, ctx, desiredStatus(current, { ready: false, message })).catch(
          () => undefined,
        );
        throw error; // the run fails: backoff, then another try
      }
      // An Event only when something changed: a resync that finds all in place says nothing.
      if (await writeStatus(current, ctx, desiredStatus(current, { ready: true }))) {
        ctx.recorder.record(current, {
          type: 'Normal',
          reason: 'Provisioned',
          action: 'Provision',
          note: `namespace ${namespaceOf(current)} with its quota and admins`,
        });
      }
    },
    cleanup: async (current) => {
      await writeRegistry(current, ctx, false);
      ctx.recorder.record(current, {
        type: 'Normal',
        reason: 'Deprovisioned',
        action: 'Cleanup',
        note: `removed from ${REGISTRY.namespace}/${REGISTRY.name}; namespace ${namespaceOf(current)} goes with the Tenant`,
      });
    },
  });
}

/** Options of {@link tenantOperator}: a controller's, but for what it watches and does. */
export type TenantOperatorConfig = Omit<
  ControllerConfig<Tenant>,
  'for' | 'owns' | 'watches' | 'reconcile'
>;

/**
 * Provisions every Tenant. Emits a report per run; never ends on a watch failure.
 *
 * @example
 * tenantOperator({ cluster: kc, recorder }).subscribe(logReport);
 */
export function tenantOperator(config: TenantOperatorConfig): Observable<ReconcileReport> {
  // Only what it labelled: a cluster's thousands of other RoleBindings stay out of memory.
  const owned = { options: { labelSelector: 'app.kubernetes.io/managed-by=tenant-operator' } };
  return controller<Tenant>({
    ...config,
    for: { resource: tenants },
    owns: [
      { resource: namespaces, ...owned },
      { resource: resourcequotas, ...owned },
      { resource: rolebindings, ...owned },
    ],
    reconcile: reconcileTenant,
  });
}
