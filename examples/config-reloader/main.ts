/**
 * config-reloader: rolls the Deployments that mount a ConfigMap or a Secret when its data
 * changes. A small operator you can run, built on kube-rx's `controller()`.
 *
 *   npm run example examples/config-reloader/main.ts [namespace | -A]
 *
 * With the current kubeconfig context (in a pod: its service account), it watches Deployments
 * and ConfigMaps (and Secrets with SECRETS=1) of one namespace (the argument, else the context's
 * namespace: in a pod, its own) or of all (-A), and for each Deployment keeps the hash of
 * the data it mounts in the annotation `kube-rx.example/config-hash`. A Deployment seen for the
 * first time is only recorded; when the data changes later, the hash goes onto its pod template
 * too, and the Deployment controller rolls its pods the usual way (maxSurge, maxUnavailable).
 * Then `kubectl rollout undo` works as for any other rollout.
 *
 * Replicas elect a leader through the Lease `config-reloader` of that namespace (LEASE_NAMESPACE
 * with -A; POD_NAME names the replica; LEADER_ELECT=0 turns it off): only the leader watches and
 * acts, a standby takes over within the lease duration when it stops.
 *
 * It serves `/healthz` and `/metrics` (controller-runtime's names) on port 8081 (HEALTH_PORT; HEALTH_HOST, default 0.0.0.0 when run as a
 * program): the leader answers 503 until every watch has its initial state, then 200; a standby
 * answers 200 (it is ready to take over, and a rollout of the reloader must not wait for it).
 * SIGTERM and SIGINT stop it gracefully: no new run starts, runs in flight finish, the Lease is
 * released, then it exits. RBAC: rbac.yaml beside this file (one namespace, no Secrets).
 *
 * Every read and write goes through kube-rx: the watches, the Lease, and the Deployment writes,
 * which are server-side apply (`resourceApi(kc, deployments).apply`) with the field manager
 * `kube-rx-config-reloader`, so `kubectl get deploy -o yaml --show-managed-fields` shows which
 * fields are the reloader's and a conflict with another manager is reported, not overwritten.
 * `@kubernetes/client-node` is only the KubeConfig loader. DEPLOYMENT_WRITE=merge-patch sends
 * the same fields as a merge patch, for a server without server-side apply.
 *
 * In your project, import from 'kube-rx' instead of '../../src/index.js'.
 */
import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type { RequestListener } from 'node:http';
import { Registry } from 'prom-client';
import {
  deployments,
  resourceApi,
  type Cluster,
  type LeaderElectionConfig,
} from '../../src/index.js';
import { runOperator, type RunningOperator } from '../operator-process/runOperator.js';
import { configReloader } from './configReloader.js';
import type { DeploymentPatch } from './reconcileDeployment.js';

/** The field manager of every write: `kubectl get deploy -o yaml --show-managed-fields` names it. */
export const FIELD_MANAGER = 'kube-rx-config-reloader';

/** Options of {@link main}. */
export interface ConfigReloaderOptions {
  /** Only this namespace (default: all). */
  namespace?: string;
  /** Watch Secrets too (default false: rbac.yaml grants none). */
  secrets?: boolean;
  /** Stops the reloader gracefully when it aborts. */
  signal?: AbortSignal;
  /** Where lines go (default console.log). */
  log?: (line: string) => void;
  /** The probe server's address (default 127.0.0.1:8081); `false`: none. */
  health?: { host?: string; port?: number } | false;
  /**
   * More HTTP routes beside /healthz: the seam for metrics (`{ '/metrics': handler }`, with the
   * controller's `onQueue` and `onLifecycle` hooks passed through `controllerHooks`).
   */
  routes?: Record<string, RequestListener>;
  /** Hooks given to the controller as they are (onQueue, onLifecycle: metrics, logs). */
  controllerHooks?: Record<string, unknown>;
  /**
   * A prom-client registry: the controller's metrics (controller-runtime's names, through
   * `kube-rx/metrics`) are registered in it and served on `/metrics` beside `/healthz`.
   */
  metrics?: Registry;
  /**
   * How Deployments are written: server-side apply (the default), or a merge patch of the same
   * fields for a server without server-side apply.
   */
  write?: DeploymentWrite;
  /**
   * Acts only while holding this Lease (`leaderElection`'s namespace, name and identity, and
   * its durations); default: always acts.
   */
  leaderElection?: LeaderElectionConfig;
}

/** A running reloader: its probe server's URL, and `done` with its number of runs. */
export type RunningReloader = RunningOperator;

/** How {@link deploymentWriter} sends the reloader's fields of a Deployment. */
export type DeploymentWrite = 'apply' | 'merge-patch';

/**
 * Writes the reloader's fields of a Deployment through kube-rx: server-side apply with its own
 * field manager (apiVersion and kind come from the `deployments` ref), or a merge patch of the
 * same body. Either rejects with a WatchError (a stale resourceVersion: CONFLICT, and the run is
 * retried on the newer state).
 */
export function deploymentWriter(cluster: Cluster, write: DeploymentWrite = 'apply') {
  const api = resourceApi(cluster, deployments);
  return (namespace: string, name: string, body: DeploymentPatch) =>
    write === 'apply'
      ? api.apply(
          { ...body, metadata: { ...body.metadata, namespace, name } },
          { fieldManager: FIELD_MANAGER },
        )
      : api.patch(name, body, { namespace, type: 'merge', fieldManager: FIELD_MANAGER });
}

/** Starts the reloader and its probe server. */
export async function main(
  kc: KubeConfig,
  options: ConfigReloaderOptions = {},
): Promise<RunningReloader> {
  const { namespace, secrets = false, log = console.log } = options;
  return runOperator(kc, {
    ...options,
    name: 'config-reloader',
    syncedLine:
      'synced: watching deployments, configmaps' + (secrets === false ? '' : ' and secrets'),
    reports: ({ stop, onSynced, metrics }) =>
      configReloader({
        ...options.controllerHooks,
        ...(metrics && { onQueue: metrics.onQueue, onLifecycle: metrics.onLifecycle }),
        cluster: kc,
        namespace,
        secrets,
        patch: deploymentWriter(kc, options.write),
        stop,
        onSynced,
        onOutcome: (key, outcome) => {
          if (outcome === 'rolled' || outcome === 'adopted') log(`${outcome} ${key}`);
        },
      }),
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  const { env } = process;
  const argument = process.argv[2];
  const namespace =
    argument === '-A' ? undefined : (argument ?? kc.getContextObject(kc.currentContext)?.namespace);
  const leaseNamespace = namespace ?? env.LEASE_NAMESPACE;
  if (env.LEADER_ELECT !== '0' && leaseNamespace === undefined) {
    throw new Error('with -A, LEASE_NAMESPACE names where the Lease lives (or LEADER_ELECT=0)');
  }
  const reloader = await main(kc, {
    namespace,
    secrets: env.SECRETS === '1',
    write: env.DEPLOYMENT_WRITE === 'merge-patch' ? 'merge-patch' : 'apply',
    signal: stop.signal,
    metrics: new Registry(),
    health: { host: env.HEALTH_HOST ?? '0.0.0.0', port: Number(env.HEALTH_PORT ?? 8081) },
    leaderElection:
      env.LEADER_ELECT === '0'
        ? undefined
        : {
            namespace: leaseNamespace!,
            name: 'config-reloader',
            identity: env.POD_NAME ?? `${hostname()}-${process.pid}`,
          },
  });
  console.log(`config-reloader: /healthz and /metrics on ${reloader.healthUrl}`);
  console.log(`config-reloader: stopped after ${await reloader.done} runs`);
}
