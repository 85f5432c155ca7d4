/**
 * The config-reloader as a kube-rx `controller()`: one key per Deployment, triggered by the
 * Deployment itself and by every ConfigMap and Secret it mounts.
 *
 *   deployments ──────────────────────────────► key shop/web ─┐
 *   configmaps ── map: byConfig index ────────► key shop/web ─┼─► reconcileQueue ─► reconcile
 *   secrets ───── map: byConfig index ────────► key shop/web ─┘    (one run per key at a time,
 *                                                                  coalesced, backoff on error)
 *
 * The Deployment store carries an index (`byConfig`, see mounts.ts), so a ConfigMap change finds
 * the Deployments that mount it in O(log n) instead of scanning them all.
 */
import type { V1Deployment, V1Secret } from '@kubernetes/client-node';
import {
  configmaps,
  controller,
  deployments,
  resource,
  type Cluster,
  type ControllerConfig,
  type ControllerStores,
  type KubernetesObject,
  type ReconcileReport,
  type ResourceRef,
  type Store,
} from '../../src/index.js';
import type { Observable } from 'rxjs';
import { configRefOf, mountIndex, type ConfigKind } from './mounts.js';
import {
  reconcileDeployment,
  type DeploymentPatch,
  type ReconcileOutcome,
} from './reconcileDeployment.js';

/** Secrets (`/api/v1/secrets`), typed `V1Secret`. */
export const secrets = resource<V1Secret>('v1', 'secrets');

/** Options of {@link configReloader}. */
export interface ConfigReloaderConfig extends Omit<
  ControllerConfig<V1Deployment>,
  'cluster' | 'for' | 'owns' | 'watches' | 'reconcile'
> {
  cluster: Cluster;
  /** Writes the reloader's fields of a Deployment (main.ts: server-side apply through `resourceApi`). */
  patch: (namespace: string, name: string, patch: DeploymentPatch) => Promise<unknown>;
  /** Only this namespace (a Role is enough then); default: every namespace. */
  namespace?: string;
  /** Watch Secrets too (default true); false needs no access to Secrets at all. */
  secrets?: boolean;
  /** Told what each run did (`rolled`, `adopted`...), for logs. */
  onOutcome?: (key: string, outcome: ReconcileOutcome) => void;
}

/** The keys (`namespace/name`) of the Deployments that mount this ConfigMap or Secret. */
export function deploymentsMounting(
  kind: ConfigKind,
  object: KubernetesObject,
  stores: ControllerStores,
): string[] {
  const mounting = stores.get(deployments)?.byIndex('byConfig', configRefOf(kind, object)) ?? [];
  return mounting.map((d) => `${d.metadata?.namespace}/${d.metadata?.name}`);
}

/** A store of the controller's: every one is there once synced, which is before any run. */
function storeOf<T>(stores: ControllerStores, resource: ResourceRef<T>): Store<T> {
  const store = stores.get(resource);
  if (store === undefined) throw new Error(`no store of ${resource.plural}`);
  return store;
}

/**
 * Rolls the Deployments that mount a ConfigMap (or Secret) when its data changes. Emits a
 * report per run; never ends on a watch failure (see `controller`).
 *
 * @example
 * configReloader({ cluster: kc, patch, onSynced: () => (ready = true) }).subscribe(logReport);
 */
export function configReloader(config: ConfigReloaderConfig): Observable<ReconcileReport> {
  const { patch, namespace, secrets: withSecrets = true, onOutcome, ...rest } = config;
  const options = { namespace };
  return controller<V1Deployment>({
    ...rest,
    for: { resource: deployments, options, indexes: { byConfig: mountIndex } },
    watches: [
      {
        resource: configmaps,
        options,
        map: (cm: KubernetesObject, stores: ControllerStores) =>
          deploymentsMounting('configmap', cm, stores),
      },
      ...(withSecrets
        ? [
            {
              resource: secrets,
              options,
              map: (secret: KubernetesObject, stores: ControllerStores) =>
                deploymentsMounting('secret', secret, stores),
            },
          ]
        : []),
    ],
    reconcile: async (deployment, { key, stores }) => {
      const outcome = await reconcileDeployment(deployment, {
        configMaps: storeOf(stores, configmaps),
        secrets: withSecrets ? storeOf(stores, secrets) : undefined,
        patch,
      });
      onOutcome?.(key, outcome);
    },
  });
}
