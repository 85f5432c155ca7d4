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
import type { RequestListener } from 'node:http';
import { Registry } from 'prom-client';
import {
  deployments,
  leaderElection,
  resourceApi,
  whileLeader,
  type Cluster,
  type ReconcileReport,
} from '../../src/index.js';
import { controllerMetrics } from '../../src/metrics.js';
import { aborted } from '../resilient-watch.js';
import { configReloader } from './configReloader.js';
import { startProbeServer } from './probes.js';
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
  leaderElection?: LeaderElectionSettings;
}

/** The Lease the replicas elect a leader with. */
export type LeaderElectionSettings = Parameters<typeof leaderElection>[1];

/** A running reloader. */
export interface RunningReloader {
  /** The probe server's URL, when it has one. */
  healthUrl?: string;
  /** Resolves with the number of runs once the reloader stopped (after `signal` aborted). */
  done: Promise<number>;
}

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

/** `rolled shop/web`, `error shop/web (attempt 2): ...`: one line per run that did something. */
export function describeReport(report: ReconcileReport): string | undefined {
  if (report.outcome === 'done' || report.outcome === 'requeue') return undefined;
  const message = report.error instanceof Error ? report.error.message : String(report.error);
  const retry = report.nextRunInMs === undefined ? '' : `, retry in ${report.nextRunInMs} ms`;
  return `${report.outcome} ${report.key} (attempt ${report.attempt}${retry}): ${message.slice(0, 300)}`;
}

/** Starts the reloader and its probe server. */
export async function main(
  kc: KubeConfig,
  options: ConfigReloaderOptions = {},
): Promise<RunningReloader> {
  const { namespace, secrets = false, signal, log = console.log, health = {} } = options;
  const { leaderElection: lease, metrics: registry } = options;
  const metrics = registry && controllerMetrics(registry, { controller: 'config-reloader' });
  const controllerHooks = metrics
    ? { ...options.controllerHooks, onQueue: metrics.onQueue, onLifecycle: metrics.onLifecycle }
    : (options.controllerHooks ?? {});
  const routes: Record<string, RequestListener> = { ...options.routes };
  if (registry) {
    routes['/metrics'] = (_request, response) => {
      void registry.metrics().then((text) => {
        response.setHeader('content-type', registry.contentType);
        response.end(text);
      });
    };
  }
  let synced = false;
  let announced = false;
  // Whether this replica leads (always, without an election): what readiness and the end read.
  const leadingNow = new BehaviorSubject(lease === undefined);
  const probes =
    health === false
      ? undefined
      : await startProbeServer({ ...health, ready: () => !leadingNow.value || synced, routes });
  // Each time leadership is won the controller starts afresh (its watches too) and syncs again.
  // The election ends (releasing the Lease) once the controller has drained after `signal`, or
  // at once when `signal` aborts a standby.
  const drained = new Subject<void>();
  const ended$ = merge(
    drained,
    aborted(signal).pipe(switchMap(() => leadingNow.pipe(filter((now) => !now)))),
  );
  const leading$ = lease
    ? leaderElection(kc, { logger: { warn: log }, ...lease }).pipe(
        tap((now) => {
          if (now === leadingNow.value && announced) return;
          announced = true;
          log(now ? `leading (${lease.identity})` : 'standing by');
          synced = false;
          leadingNow.next(now);
        }),
        takeUntil(ended$),
      )
    : undefined;
  let runs = 0;
  const reports$ = configReloader({
    ...controllerHooks,
    cluster: kc,
    namespace,
    secrets,
    patch: deploymentWriter(kc, options.write),
    // Graceful: on abort no new run starts and the runs in flight finish, then it completes.
    stop: aborted(signal),
    onSynced: () => {
      synced = true;
      log('synced: watching deployments, configmaps' + (secrets === false ? '' : ' and secrets'));
    },
    onOutcome: (key, outcome) => {
      if (outcome === 'rolled' || outcome === 'adopted') log(`${outcome} ${key}`);
    },
  }).pipe(
    tap({ complete: () => drained.next() }),
    leading$ ? whileLeader(leading$) : identity,
    tap((report) => {
      runs++;
      metrics?.observeReport(report);
      const line = describeReport(report);
      if (line) log(line);
    }),
  );
  const done = lastValueFrom(reports$, { defaultValue: undefined }).finally(() => probes?.close());
  return { healthUrl: probes?.url, done: done.then(() => runs) };
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
