// The controller under the chaos workload (issue 26): `npm run chaos -- --controller`.
// Deployments are created, updated and deleted at random while the server drops connections,
// expires history (410 relists), restarts and fails requests; the reconciler takes a random
// time and fails at random. At the end: every live deployment's last successful run saw its
// current version, every deleted one's last run saw `undefined`, no run of a key started after
// its deletion was reconciled (unless it came back), and no key ever ran twice at once.
import type { V1Deployment } from '@kubernetes/client-node';
import { retry } from 'rxjs';
import { controller, createInformers, type ReconcileReport } from '../../src/index.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { FaultInjection } from './faults.js';
import { churn, quiesce, socketsLeft } from './harness.js';
import { Prng } from './prng.js';
import { RotatingCredentials, Workload, deploymentKind } from './workload.js';

/** Settings of one controller chaos run. */
export interface ControllerChaosOptions {
  seed: number;
  durationMs: number;
  faultEveryMs?: number;
  namespaces?: number;
  backoffScale?: number;
  /** The share of runs that fail (default 0.3). */
  failRate?: number;
  log?: (line: string) => void;
}

/** What a controller chaos run measured; `failures` is empty when it passed. */
export interface ControllerChaosReport {
  seed: number;
  runs: number;
  retries: number;
  maxConcurrentPerKey: number;
  maxConcurrent: number;
  mutations: number;
  faults: number;
  liveObjects: number;
  deletedKeys: number;
  convergedMs: number | undefined;
  failures: string[];
}

const MUTATION_EVERY_MS = 20;
const IDLE_TIMEOUT_MS = 1500;

export async function runControllerChaos(
  options: ControllerChaosOptions,
): Promise<ControllerChaosReport> {
  const { seed, durationMs, faultEveryMs = 1500, backoffScale = 0.1, failRate = 0.3 } = options;
  const log = options.log ?? (() => {});
  const root = new Prng(seed);
  const mutationRandom = root.fork(1);
  const faultRandom = root.fork(2);
  const jitterRandom = root.fork(3);
  const reconcileRandom = root.fork(4);
  const server = await FakeKubeApiServer.start({ historySize: 200, bookmarkIntervalMs: 300 });
  const credentials = new RotatingCredentials(server);
  const namespaces = Array.from({ length: options.namespaces ?? 4 }, (_, i) => `chaos-${i}`);
  const workload = new Workload(server, [deploymentKind(8)], namespaces, mutationRandom);
  const faults = new FaultInjection(server, credentials, faultRandom, {
    idleTimeoutMs: IDLE_TIMEOUT_MS,
  });
  for (let i = 0; i < 20; i++) workload.mutate();

  // CHAOS_DEBUG=1 prints the history of a key that fails a check.
  const debug = process.env.CHAOS_DEBUG !== undefined;
  let eventsSeen = 0;
  const histories = new Map<string, string[]>();
  const history = (key: string, line: string) => {
    const list = histories.get(key) ?? [];
    list.push(`${Date.now() % 100_000} ${line}`);
    histories.set(key, list);
  };
  const running = new Map<string, number>();
  let inFlight = 0;
  const counts = { runs: 0, retries: 0, maxPerKey: 0, maxConcurrent: 0 };
  // Per key: what its last successful run saw (a resourceVersion, or null for undefined).
  const lastSeen = new Map<string, string | null>();
  // Per key: how many ADDED events the checker has seen, and for a key whose deletion a run
  // reconciled, that count when the run started. A re-creation during that run (ADDED, maybe
  // DELETED again, while it was in flight) rightly triggers one more run that sees undefined.
  const added = new Map<string, number>();
  const deletionReconciledAt = new Map<string, number>();
  const violations: string[] = [];
  const informers = createInformers({
    resilience: {
      bookmarks: { idleTimeout: IDLE_TIMEOUT_MS },
      random: () => jitterRandom.next() * backoffScale,
    },
  });
  // A key deleted, reconciled as such, then created again may run (and even see undefined) again.
  const recreations = informers
    .events(credentials, deploymentKind(8).resource)
    .pipe(retry({ delay: 100 }))
    .subscribe((event) => {
      eventsSeen++;
      if (event.type === 'BOOKMARK' || event.type === 'ERROR') return;
      const key = `${event.object.metadata!.namespace}/${event.object.metadata!.name}`;
      if (debug) history(key, `${event.type} ${event.object.metadata!.resourceVersion}`);
      if (event.type !== 'ADDED') return;
      added.set(key, (added.get(key) ?? 0) + 1);
      if (lastSeen.get(key) === null) lastSeen.set(key, 'recreated');
    });
  const subscription = controller<V1Deployment>({
    cluster: credentials,
    informers,
    for: { resource: deploymentKind(8).resource as never },
    concurrency: 4,
    rateLimit: false,
    backoff: { initialMs: 20, maxMs: 500 },
    reconcile: async (object, { key }) => {
      const seen = object?.metadata?.resourceVersion ?? null;
      if (seen !== null && lastSeen.get(key) === null) lastSeen.set(key, 'recreated');
      const addsAtStart = added.get(key) ?? 0;
      if (
        seen === null &&
        lastSeen.get(key) === null &&
        deletionReconciledAt.get(key) === addsAtStart
      ) {
        violations.push(`${key} ran again after its deletion was reconciled`);
        if (debug) console.log(key, histories.get(key));
      }
      if (debug) history(key, `run saw ${seen}`);
      const mine = (running.get(key) ?? 0) + 1;
      running.set(key, mine);
      inFlight++;
      counts.maxPerKey = Math.max(counts.maxPerKey, mine);
      counts.maxConcurrent = Math.max(counts.maxConcurrent, inFlight);
      counts.runs++;
      try {
        await new Promise((resolve) => setTimeout(resolve, reconcileRandom.int(30)));
        if (reconcileRandom.next() < failRate) throw new Error('chaos: reconcile failed');
        lastSeen.set(key, seen);
        if (seen === null) deletionReconciledAt.set(key, addsAtStart);
        if (debug) history(key, `ok`);
      } finally {
        running.set(key, mine - 1);
        inFlight--;
      }
    },
  }).subscribe((report: ReconcileReport) => {
    if (report.outcome === 'error') counts.retries++;
  });

  await churn({
    durationMs,
    mutationEveryMs: MUTATION_EVERY_MS,
    faultEveryMs,
    faults,
    faultRandom,
    mutate: () => workload.mutate(),
    log,
  });
  faults.reset();
  const lastChange = Date.now();
  let convergedAt: number | undefined;
  const converged = await quiesce({
    settled: () => {
      const ok = unreconciled(server, namespaces, lastSeen).length === 0;
      convergedAt = ok ? (convergedAt ?? Date.now()) : undefined;
      return ok;
    },
    failed: () => false,
    settleMs: 1000,
    timeoutMs: 30_000 * backoffScale + 20_000,
    pollMs: 50,
  });
  const failures = [...new Set(violations)];
  if (!converged) failures.push(...unreconciled(server, namespaces, lastSeen).slice(0, 10));
  if (counts.maxPerKey > 1) failures.push(`a key ran ${counts.maxPerKey} times at once`);
  subscription.unsubscribe();
  recreations.unsubscribe();
  if (debug) console.log(`events seen by the checker: ${eventsSeen}`);
  const left = await socketsLeft(server, 3000);
  if (left.server + left.clientHandles > 0) failures.push(`sockets left: ${JSON.stringify(left)}`);
  await server.stop();
  const live = namespaces.flatMap((ns) => server.objects(deploymentKind(8).resource, ns));
  return {
    seed,
    runs: counts.runs,
    retries: counts.retries,
    maxConcurrentPerKey: counts.maxPerKey,
    maxConcurrent: counts.maxConcurrent,
    mutations: workload.counts.total,
    faults: faults.total,
    liveObjects: live.length,
    deletedKeys: [...lastSeen.values()].filter((seen) => seen === null).length,
    convergedMs: converged && convergedAt !== undefined ? convergedAt - lastChange : undefined,
    failures,
  };
}

/** Keys whose last successful run did not see what the server holds now. */
function unreconciled(
  server: FakeKubeApiServer,
  namespaces: string[],
  lastSeen: Map<string, string | null>,
): string[] {
  const out: string[] = [];
  const live = new Set<string>();
  for (const object of namespaces.flatMap((ns) => server.objects(deploymentKind(8).resource, ns))) {
    const key = `${object.metadata!.namespace}/${object.metadata!.name}`;
    live.add(key);
    const seen = lastSeen.get(key);
    if (seen !== object.metadata!.resourceVersion) {
      out.push(`${key}: live at ${object.metadata!.resourceVersion}, last reconciled ${seen}`);
    }
  }
  for (const [key, seen] of lastSeen) {
    if (!live.has(key) && seen !== null) out.push(`${key}: deleted, last reconcile saw ${seen}`);
  }
  return out;
}

/** The report as lines. */
export function formatControllerReport(report: ControllerChaosReport): string[] {
  return [
    `runs           ${report.runs} (${report.retries} failed and retried)`,
    `concurrency    max ${report.maxConcurrentPerKey} per key, ${report.maxConcurrent} in all`,
    `workload       ${report.mutations} mutations, ${report.faults} faults`,
    `end            ${report.liveObjects} live deployments, ${report.deletedKeys} deleted keys reconciled`,
    `converged      ${report.convergedMs === undefined ? 'NO' : `${report.convergedMs} ms after the last change`}`,
    report.failures.length === 0 ? 'PASS' : `FAIL\n  ${report.failures.join('\n  ')}`,
  ];
}
