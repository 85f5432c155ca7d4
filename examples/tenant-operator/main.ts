/**
 * tenant-operator: gives each Tenant (tenants.example.com, crd.yaml) a namespace `tenant-<name>`
 * with a ResourceQuota and a RoleBinding for its admins, records it in the shared ConfigMap
 * tenant-system/tenant-registry, and reports through the Tenant's status and Events.
 *
 *   kubectl apply -f examples/tenant-operator/crd.yaml
 *   npm run example examples/tenant-operator/main.ts
 *
 * With the current kubeconfig context (in a pod: its service account). Replicas elect a leader
 * through the Lease `tenant-operator` in LEASE_NAMESPACE (default tenant-system; POD_NAME names
 * the replica; LEADER_ELECT=0 turns it off). Sharded instead (`--shards <ring>`, or SHARDS), every
 * replica acts, each on its share of the Tenants (and of what they own), as one member of the
 * ring in LEASE_NAMESPACE named by `--identity <name>` (or POD_NAME; the default is the host
 * name and pid):
 *
 *   npm run example examples/tenant-operator/main.ts -- --shards tenants --identity op-1
 *   npm run example examples/tenant-operator/main.ts -- --shards tenants --identity op-2
 *
 * It serves `/healthz` and `/metrics` on port 8081 (HEALTH_PORT, HEALTH_HOST), as config-reloader
 * does: both run through ../operator-process/runOperator.ts. SIGTERM and SIGINT stop it
 * gracefully. RBAC: rbac.yaml beside this file.
 *
 * In your project, import from 'kube-rx' instead of '../../src/index.js'.
 */
import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import {
  eventRecorder,
  type Cluster,
  type EventRecorder,
  type LeaderElectionConfig,
  type ShardingConfig,
} from '../../src/index.js';
import {
  describeReport,
  runOperator,
  type RunningOperator,
} from '../operator-process/runOperator.js';
import { tenantOperator } from './tenantOperator.js';

/** Options of {@link main}. */
export interface TenantOperatorOptions {
  /** Stops the operator gracefully when it aborts. */
  signal?: AbortSignal;
  /** Where lines go (default console.log). */
  log?: (line: string) => void;
  /** The probe server's address (default 127.0.0.1:8081); `false`: none. */
  health?: { host?: string; port?: number } | false;
  /** Registers the controller's metrics in it and serves them on `/metrics`. */
  metrics?: Registry;
  /** Acts only while holding this Lease; default: always acts. */
  leaderElection?: LeaderElectionConfig;
  /**
   * One member of a ring instead (no leader election: every member acts, each on the Tenants
   * the ring's sharder assigned to it). Its metrics carry `member="<identity>"`.
   */
  sharding?: ShardingConfig;
  /** This replica's name in its Events' reportingInstance (default the host name). */
  identity?: string;
}

/** A running operator: its probe server's URL, and `done` with its number of runs. */
export type { RunningOperator };

/** Starts the operator and its probe server. */
export async function main(
  cluster: Cluster,
  options: TenantOperatorOptions = {},
): Promise<RunningOperator> {
  const { sharding, leaderElection: lease } = options;
  if (sharding && lease) {
    throw new TypeError('tenant-operator: sharding or leaderElection, not both');
  }
  // Its own recorder (not the controller's default), so Events name the operator and the
  // replica, and a dropped Event is counted on /metrics.
  let recorder: EventRecorder | undefined;
  return runOperator(cluster, {
    ...options,
    name: 'tenant-operator',
    member: sharding?.identity,
    syncedLine: 'synced: watching tenants, namespaces, resourcequotas, rolebindings',
    describe: (report) =>
      describeReport(report) ??
      (report.outcome === 'done' ? `reconciled ${report.key}` : undefined),
    reports: ({ stop, onSynced, metrics }) => {
      recorder = eventRecorder(cluster, {
        reportingController: 'example.com/tenant-operator',
        reportingInstance: options.identity ?? lease?.identity ?? sharding?.identity ?? hostname(),
        onDrop: metrics?.onEventDropped,
      });
      return tenantOperator({
        cluster,
        recorder,
        ...(metrics && { onQueue: metrics.onQueue, onLifecycle: metrics.onLifecycle }),
        ...(sharding && { sharding }),
        stop,
        onSynced,
      });
    },
    onEnd: () => recorder?.close(),
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  const { env } = process;
  const args = parseArgs({
    options: { shards: { type: 'string' }, identity: { type: 'string' } },
  }).values;
  const ring = args.shards ?? env.SHARDS;
  // A label value when sharded: lowercase, as a pod name is.
  const identity = (args.identity ?? env.POD_NAME ?? `${hostname()}-${process.pid}`).toLowerCase();
  const namespace = env.LEASE_NAMESPACE ?? 'tenant-system';
  const operator = await main(kc, {
    signal: stop.signal,
    metrics: new Registry(),
    identity,
    health: { host: env.HEALTH_HOST ?? '0.0.0.0', port: Number(env.HEALTH_PORT ?? 8081) },
    ...(ring
      ? { sharding: { ring, namespace, identity } }
      : env.LEADER_ELECT === '0'
        ? {}
        : { leaderElection: { namespace, name: 'tenant-operator', identity } }),
  });
  console.log(`tenant-operator: /healthz and /metrics on ${operator.healthUrl}`);
  console.log(`tenant-operator: stopped after ${await operator.done} runs`);
}
