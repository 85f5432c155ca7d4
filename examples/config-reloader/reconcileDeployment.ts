/**
 * The config-reloader's reconcile: one Deployment, as the stores hold it now.
 *
 * It hashes the data of every ConfigMap and Secret the Deployment's pods read and compares that
 * with the hash recorded on the Deployment (`kube-rx.example/config-hash` in its metadata):
 *
 *   recorded == hash        nothing to do
 *   nothing recorded        record the hash, no rollout (the pods already run this config)
 *   recorded != hash        record the hash and put it on the pod template: a new ReplicaSet
 *                           rolls the pods, with the Deployment's own strategy and surge
 *
 * Level-triggered: it never looks at the event that triggered it, so a run after a restart of
 * the reloader, after a missed event or after a relist does the same thing. The record lives on
 * the Deployment itself, so a change made while the reloader was down still rolls it.
 *
 * It is a plain async function over its inputs (the Deployment, two lookups and a write
 * function), so a spec runs it with stores built from events and a recording write.
 */
import { createHash, createHmac } from 'node:crypto';
import type { V1ConfigMap, V1Deployment, V1Secret } from '@kubernetes/client-node';
import { mountedConfig } from './mounts.js';

/** The annotation that records the hash, on the Deployment and on its pod template. */
export const CONFIG_HASH_ANNOTATION = 'kube-rx.example/config-hash';

/** Finds an object by namespace and name: a kube-rx `Store` is one. */
export interface Lookup<T> {
  get(namespace: string, name: string): T | undefined;
}

/**
 * The fields of a Deployment the reloader owns: what it sends with server-side apply (main.ts,
 * `resourceApi(...).apply` with its own field manager). The same body is a valid merge patch.
 */
export interface DeploymentPatch {
  metadata: { resourceVersion?: string; annotations: Record<string, string> };
  spec?: { template: { metadata: { annotations: Record<string, string> } } };
}

/** What {@link reconcileDeployment} needs besides the Deployment. */
export interface ReconcileDeploymentConfig {
  configMaps: Lookup<V1ConfigMap>;
  /** Without it, Secrets are not looked at (the reloader was started without them). */
  secrets?: Lookup<V1Secret>;
  /** Writes the reloader's fields of the Deployment `namespace/name` (server-side apply). */
  patch: (namespace: string, name: string, patch: DeploymentPatch) => Promise<unknown>;
}

/** What a run did: for logs and specs. */
export type ReconcileOutcome = 'gone' | 'no-config' | 'unchanged' | 'adopted' | 'rolled';

/**
 * Brings one Deployment's recorded config hash (and, on a change, its pods) up to date.
 *
 * @example
 * const api = resourceApi(kc, deployments);
 * await reconcileDeployment(stores.get(deployments).get(key), {
 *   configMaps: stores.get(configmaps),
 *   secrets: stores.get(secrets),
 *   patch: (namespace, name, body) =>
 *     api.apply({ ...body, metadata: { ...body.metadata, namespace, name } }, { fieldManager: 'config-reloader' }),
 * });
 */
export async function reconcileDeployment(
  deployment: V1Deployment | undefined,
  config: ReconcileDeploymentConfig,
): Promise<ReconcileOutcome> {
  const { configMaps, secrets, patch } = config;
  // Deleted: its pods go with it; nothing of ours to clean up.
  if (deployment === undefined) return 'gone';
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  const hash = configHash(deployment, configMaps, secrets);
  if (hash === undefined) return 'no-config';
  const recorded = deployment.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
  if (recorded === hash) return 'unchanged';
  const annotations = { [CONFIG_HASH_ANNOTATION]: hash };
  // With server-side apply, a field the reloader stops sending is removed: a hash already on the
  // pod template (a record lost, an earlier rollout) is sent again as it is on adoption, or the
  // apply would remove it and roll the pods.
  const onTemplate = deployment.spec?.template?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
  const templateHash = recorded !== undefined ? hash : onTemplate;
  // The resourceVersion read makes the write conditional: if the Deployment changed since this
  // run's snapshot (its mounts with it), the server answers 409, the run fails and is retried
  // with backoff on the newer state instead of recording a hash of what it no longer mounts.
  const body: DeploymentPatch = {
    metadata: { resourceVersion: deployment.metadata?.resourceVersion, annotations },
    ...(templateHash !== undefined && {
      spec: { template: { metadata: { annotations: { [CONFIG_HASH_ANNOTATION]: templateHash } } } },
    }),
  };
  await patch(namespace, name, body);
  return recorded === undefined ? 'adopted' : 'rolled';
}

/**
 * The hash of everything a Deployment's pods read from ConfigMaps and Secrets, or undefined when
 * they read none. A missing ConfigMap or Secret counts as such (its creation changes the hash).
 * Labels and annotations of the ConfigMap do not count: only `data` and `binaryData`.
 *
 * A Secret's data goes in keyed by the Secret's uid (HMAC): the annotation is readable by anyone
 * who can read Deployments, and a plain hash of a short secret could be guessed from it.
 */
export function configHash(
  deployment: V1Deployment,
  configMaps: Lookup<V1ConfigMap>,
  secrets: Lookup<V1Secret> | undefined,
): string | undefined {
  const namespace = deployment.metadata?.namespace ?? '';
  const mounted = mountedConfig(deployment);
  const secretNames = secrets ? mounted.secret : [];
  if (mounted.configmap.length === 0 && secretNames.length === 0) return undefined;
  const parts: unknown[] = [];
  for (const name of mounted.configmap) {
    const cm = configMaps.get(namespace, name);
    parts.push(['configmap', name, cm ? [sorted(cm.data), sorted(cm.binaryData)] : null]);
  }
  for (const name of secretNames) {
    const secret = secrets!.get(namespace, name);
    const data = secret && JSON.stringify([sorted(secret.data), sorted(secret.stringData)]);
    const digest =
      secret &&
      createHmac('sha256', secret.metadata?.uid ?? '')
        .update(data!)
        .digest('hex');
    parts.push(['secret', name, digest ?? null]);
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** Entries sorted by key, so that the same data always hashes the same. */
function sorted(data: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(data ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
