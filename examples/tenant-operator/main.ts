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
 * It serves `/healthz` and `/metrics` on port 8081
 * (HEALTH_PORT, HEALTH_HOST), as config-reloader does, whose probe server it reuses. SIGTERM and
 * SIGINT stop it gracefully. RBAC: rbac.yaml beside this file.
 *
 * In your project, import from 'kube-rx' instead of '../../src/index.js'.
 */
import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { RequestListener } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import {
  BehaviorSubject,
  filter,
  identity,
  lastValueFrom,
  merge,
  Subject,
  switchMap,
  takeUntil,
  tap,
} from 'rxjs';
import { Registry } from 'prom-client';
import {
  eventRecorder,
  leaderElection,
  whileLeader,
  type Cluster,
  type ShardingConfig,
} from '../../src/index.js';
import { controllerMetrics } from '../../src/metrics.js';
import { aborted } from '../resilient-watch.js';
import { describeReport } from '../config-reloader/main.js';
import { startProbeServer } from '../config-reloader/probes.js';
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
  leaderElection?: Parameters<typeof leaderElection>[1];
  /**
   * One member of a ring instead (no leader election: every member acts, each on the Tenants
   * the ring's sharder assigned to it). Its metrics carry `member="<identity>"`.
   */
  sharding?: ShardingConfig;
  /** This replica's name in its Events' reportingInstance (default the host name). */
  identity?: string;
}

/** A running operator. */
export interface RunningOperator {
  /** The probe server's URL, when it has one. */
  healthUrl?: string;
  /** Resolves with the number of runs once the operator stopped (after `signal` aborted). */
  done: Promise<number>;
}

/** `/metrics` from a prom-client registry. */
function metricsRoute(registry: Registry): RequestListener {
  return (_request, response) => {
    void registry.metrics().then((text) => {
      response.setHeader('content-type', registry.contentType);
      response.end(text);
    });
  };
}

/** Starts the operator and its probe server. */
export async function main(
  cluster: Cluster,
  options: TenantOperatorOptions = {},
): Promise<RunningOperator> {
  const { signal, log = console.log, health = {}, sharding } = options;
  if (sharding && options.leaderElection) {
    throw new TypeError('tenant-operator: sharding or leaderElection, not both');
  }
  const lease = options.leaderElection;
  const registry = options.metrics;
  const metrics =
    registry &&
    controllerMetrics(registry, {
      controller: 'tenant-operator',
      ...(sharding && { member: sharding.identity }),
    });
  const routes: Record<string, RequestListener> = registry
    ? { '/metrics': metricsRoute(registry) }
    : {};
  let synced = false;
  // Whether this replica leads (always, without an election): what readiness and the end read.
  const leadingNow = new BehaviorSubject(lease === undefined);
  const probes =
    health === false
      ? undefined
      : await startProbeServer({ ...health, ready: () => !leadingNow.value || synced, routes });
  // The election ends (releasing the Lease) once the controller drained after `signal`, or at
  // once when `signal` aborts a standby.
  const drained = new Subject<void>();
  const ended$ = merge(
    drained,
    aborted(signal).pipe(switchMap(() => leadingNow.pipe(filter((now) => !now)))),
  );
  const leading$ = lease
    ? leaderElection(cluster, { logger: { warn: log }, ...lease }).pipe(
        tap((now) => {
          log(now ? `leading (${lease.identity})` : 'standing by');
          synced = false;
          leadingNow.next(now);
        }),
        takeUntil(ended$),
      )
    : undefined;
  // Its own recorder (not the controller's default), so Events name the operator and the
  // replica, and a dropped Event is counted on /metrics.
  const recorder = eventRecorder(cluster, {
    reportingController: 'example.com/tenant-operator',
    reportingInstance: options.identity ?? lease?.identity ?? sharding?.identity ?? hostname(),
    onDrop: metrics?.onEventDropped,
  });
  let runs = 0;
  const reports$ = tenantOperator({
    cluster,
    recorder,
    ...(metrics ? { onQueue: metrics.onQueue, onLifecycle: metrics.onLifecycle } : {}),
    ...(sharding && { sharding }),
    stop: aborted(signal),
    onSynced: () => {
      synced = true;
      log('synced: watching tenants, namespaces, resourcequotas, rolebindings');
    },
  }).pipe(
    tap({ complete: () => drained.next() }),
    leading$ ? whileLeader(leading$) : identity,
    tap((report) => {
      runs++;
      metrics?.observeReport(report);
      const line = describeReport(report);
      if (line) log(line);
      else if (report.outcome === 'done') log(`reconciled ${report.key}`);
    }),
  );
  const done = lastValueFrom(reports$, { defaultValue: undefined }).finally(async () => {
    recorder.close();
    await probes?.close();
  });
  return { healthUrl: probes?.url, done: done.then(() => runs) };
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
