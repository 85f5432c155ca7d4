import type { LifecycleEvent } from '../../src/index.js';
import { resilientWatch } from '../../src/index.js';
import type { MergedStore } from '../../src/index.js';
import type { KubernetesObject, Logger } from '../../src/types.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { FAULT_KINDS, FaultInjection, type FaultKind } from './faults.js';
import { Prng } from './prng.js';
import { compareStore, type StoreDifference } from './compare.js';
import { DeliveryChecker } from './delivery.js';
import {
  LifecycleTally,
  churn,
  deliveryFailures,
  mb,
  quiesce,
  socketsLeft,
  watchIntoStore,
} from './harness.js';
import {
  RotatingCredentials,
  Workload,
  deploymentKind,
  podKind,
  type MutationCounts,
} from './workload.js';

/** Settings of one chaos run. Only `seed` and `durationMs` are required. */
export interface ChaosOptions {
  seed: number;
  /** How long mutations and faults go on, in ms. */
  durationMs: number;
  /** Mean time between two faults (each wait is uniform in [0.5, 1.5] times this; default 1500). */
  faultEveryMs?: number;
  /** Namespaces the objects live in (default 4). */
  namespaces?: number;
  /**
   * Scales the backoff jitter draw (default 1: the real 800 ms..30 s full-jitter backoff). A short
   * run uses 0.1 so that it sees many reconnect cycles; Retry-After is honoured either way.
   */
  backoffScale?: number;
  /** How long to wait for the store to match the server once faults stop (default 30 s x scale + 20 s). */
  quiesceTimeoutMs?: number;
  /** How the resumed watches start (and resync after 410): `'list'` (default) or `'watch-list'`. */
  initialState?: 'list' | 'watch-list';
  /** Progress lines. */
  log?: (line: string) => void;
  /** Sees every lifecycle event of the resumed watches (e.g. to scan them for secrets). */
  onLifecycle?: (source: string, event: LifecycleEvent) => void;
  /** Passed to both watches as their logger. */
  logger?: Logger;
}

/** What a chaos run measured; `failures` is empty when it passed. */
export interface ChaosReport {
  seed: number;
  phaseMs: number;
  quiesceMs: number;
  /** From the last fault to the store matching the server (both watches up) for good, in ms. */
  lastFaultToConvergedMs?: number;
  /** The most that may take: the backoff cap (30 s, scaled like the backoffs) plus 5 s. */
  convergenceBudgetMs: number;
  mutations: MutationCounts;
  faults: Record<FaultKind, number>;
  faultsTotal: number;
  connections: number;
  reconnects: number;
  relists: number;
  expired: number;
  backoffs: number;
  /** The errors the watches backed off after, by type and status (e.g. `SYSTEM_ERROR 0`). */
  backoffErrors: Record<string, number>;
  disconnects: { closed: number; tooShort: number; error: number };
  eventsDelivered: number;
  duplicates: number;
  /** An object event older than (or, for ADDED/MODIFIED, as old as) the last one of its key. */
  regressions: number;
  lost: number;
  difference: Record<'pods' | 'deployments', StoreDifference>;
  serverObjects: Record<'pods' | 'deployments', number>;
  storeObjects: Record<'pods' | 'deployments', number>;
  converged: boolean;
  pipelineError?: string;
  openSockets: { server: number; clientHandles: number };
  rssBytes: number;
  peakRssBytes: number;
  /** Up to 10 examples of duplicates and regressions, for a failing run. */
  samples: string[];
  failures: string[];
}

type SourceKey = 'pods' | 'deployments';
const SOURCES: readonly SourceKey[] = ['pods', 'deployments'];

/** Time between two mutation steps, in ms; one step in 20 is a burst of 10-40 mutations. */
const MUTATION_EVERY_MS = 20;
/** withBookmarks idle timeout, in ms; stalls last 1.5-2.5 times as long. */
const IDLE_TIMEOUT_MS = 1500;
/** The server's bookmark period, in ms. */
const BOOKMARK_INTERVAL_MS = 300;
/** timeoutSeconds of every watch connection, so connections also end normally. */
const WATCH_TIMEOUT_SECONDS = 4;
/** Events the server keeps per resource: a watch in backoff can fall behind it (410 Gone). */
const HISTORY_SIZE = 200;
/** How long the store must keep matching, with both watches connected, in ms. */
const SETTLE_MS = 1000;

/**
 * One chaos run: a FakeKubeApiServer with pods and deployments in several namespaces, random
 * mutations, a fault every few seconds of every kind the server can inject, and a resumed
 * `mergeWatches` + `toStore` pipeline watching it all. When mutations and faults stop it waits
 * for the store to match the server (both watches connected), then unsubscribes and checks that
 * nothing was lost or duplicated and that no socket is left open.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const {
    seed,
    durationMs,
    faultEveryMs = 1500,
    namespaces: namespaceCount = 4,
    backoffScale = 1,
    log = () => {},
  } = options;
  const quiesceTimeoutMs = options.quiesceTimeoutMs ?? 30_000 * backoffScale + 20_000;
  const root = new Prng(seed);
  const mutationRandom = root.fork(1);
  const faultRandom = root.fork(2);
  const jitterRandom = root.fork(3);

  const server = await FakeKubeApiServer.start({
    historySize: HISTORY_SIZE,
    bookmarkIntervalMs: BOOKMARK_INTERVAL_MS,
  });
  try {
    const credentials = new RotatingCredentials(server);
    const namespaces = Array.from({ length: namespaceCount }, (_, i) => `chaos-${i}`);
    const kinds = { pods: podKind(12), deployments: deploymentKind(5) };
    const workload = new Workload(
      server,
      [kinds.pods, kinds.deployments],
      namespaces,
      mutationRandom,
    );
    const faults = new FaultInjection(server, credentials, faultRandom, {
      idleTimeoutMs: IDLE_TIMEOUT_MS,
    });
    // A starting population, so the first list has something to say.
    for (let i = 0; i < 30; i++) workload.mutate();

    const lifecycle = new LifecycleTally();
    const resumed = (source: SourceKey) => {
      const tally = lifecycle.of(source);
      return resilientWatch(
        credentials,
        kinds[source].resource,
        {
          timeoutSeconds: WATCH_TIMEOUT_SECONDS,
          ...(options.logger && { logger: options.logger }),
        },
        {
          bookmarks: { idleTimeout: IDLE_TIMEOUT_MS },
          initialState: options.initialState ?? 'list',
          onLifecycle: (event) => {
            options.onLifecycle?.(source, event);
            tally(event);
          },
          random: () => jitterRandom.next() * backoffScale,
        },
      );
    };

    const checker = new DeliveryChecker();
    let latest: MergedStore<Record<SourceKey, KubernetesObject>> | undefined;
    let pipelineError: string | undefined;
    const subscription = watchIntoStore(
      { pods: resumed('pods'), deployments: resumed('deployments') },
      checker,
      (store) => (latest = store),
      (why) => (pipelineError ??= why),
    );

    let peakRss = process.memoryUsage().rss;
    let nextProgress = 10_000;
    const started = await churn({
      durationMs,
      mutationEveryMs: MUTATION_EVERY_MS,
      faultEveryMs,
      faults,
      faultRandom,
      mutate: () => {
        const burst = mutationRandom.next() < 0.05 ? mutationRandom.between(10, 40) : 1;
        for (let i = 0; i < burst; i++) workload.mutate();
      },
      afterStep: (elapsedMs) => {
        if (elapsedMs < nextProgress) return;
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
        log(
          `${Math.round(elapsedMs / 1000)}s: ${workload.counts.total} mutations, ` +
            `${faults.total} faults, ${lifecycle.connections} connections, ${lifecycle.relists} relists`,
        );
        nextProgress += 10_000;
      },
      stop: () => pipelineError !== undefined,
      log,
    });
    const phaseMs = Date.now() - started;

    // Quiescence: no more mutations or faults; wait for the store to match, both watches up.
    faults.reset();
    const quiesceStarted = Date.now();
    // The start of the last stretch in which the store matched: when it converged for good.
    let matchingSince: number | undefined;
    const converged = await quiesce({
      settled: () => {
        const matching =
          latest !== undefined &&
          lifecycle.watchesUp === SOURCES.length &&
          SOURCES.every(
            (s) =>
              compareStore(latest!.store(s), server.objects(kinds[s].resource), false).total === 0,
          );
        matchingSince = matching ? (matchingSince ?? Date.now()) : undefined;
        return matching;
      },
      failed: () => pipelineError !== undefined,
      settleMs: SETTLE_MS,
      timeoutMs: quiesceTimeoutMs,
      pollMs: 50,
    });
    const quiesceMs = Date.now() - quiesceStarted;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);

    const difference = {} as ChaosReport['difference'];
    const serverObjects = {} as ChaosReport['serverObjects'];
    const storeObjects = {} as ChaosReport['storeObjects'];
    for (const s of SOURCES) {
      const objects = server.objects(kinds[s].resource);
      difference[s] = compareStore(latest?.store(s), objects, true);
      serverObjects[s] = objects.length;
      storeObjects[s] = latest?.store(s).size ?? 0;
    }

    subscription.unsubscribe();
    const openSockets = await socketsLeft(server, 3000);
    const lost = SOURCES.reduce((n, s) => n + difference[s].total, 0);
    const report: ChaosReport = {
      seed,
      phaseMs,
      quiesceMs,
      ...(converged &&
        faults.lastFiredAt !== undefined && {
          lastFaultToConvergedMs: matchingSince! - faults.lastFiredAt,
        }),
      convergenceBudgetMs: 30_000 * backoffScale + 5_000,
      mutations: { ...workload.counts },
      faults: { ...faults.fired },
      faultsTotal: faults.total,
      connections: lifecycle.connections,
      reconnects: Math.max(0, lifecycle.connections - SOURCES.length),
      relists: Math.max(0, lifecycle.relists - SOURCES.length),
      expired: lifecycle.expired,
      backoffs: lifecycle.backoffs,
      backoffErrors: lifecycle.backoffErrors,
      disconnects: lifecycle.disconnects,
      eventsDelivered: checker.events,
      duplicates: checker.duplicates,
      regressions: checker.regressions,
      lost,
      difference,
      serverObjects,
      storeObjects,
      converged,
      ...(pipelineError !== undefined && { pipelineError }),
      openSockets,
      rssBytes: process.memoryUsage().rss,
      peakRssBytes: peakRss,
      samples: checker.samples,
      failures: [],
    };
    report.failures = judge(report);
    return report;
  } finally {
    await server.stop();
  }
}

/** Why a report fails: an empty list when the run passed. */
function judge(report: ChaosReport): string[] {
  const failures: string[] = [];
  if (report.pipelineError) failures.push(`the pipeline failed: ${report.pipelineError}`);
  if (!report.converged) failures.push('the store never matched the server with both watches up');
  if ((report.lastFaultToConvergedMs ?? 0) > report.convergenceBudgetMs)
    failures.push(
      `converging took longer than ${report.convergenceBudgetMs} ms after the last fault`,
    );
  return [...failures, ...deliveryFailures(report)];
}

/** The faults that did not fire at all in a run. */
export function missingFaultKinds(report: ChaosReport): FaultKind[] {
  return FAULT_KINDS.filter((kind) => report.faults[kind] === 0);
}

/** The report as lines for a terminal. */
export function formatReport(report: ChaosReport): string[] {
  const d = report.difference;
  const diff = (s: SourceKey) =>
    `missing ${d[s].missing}, extra ${d[s].extra}, stale ${d[s].stale}, differing ${d[s].differing}`;
  return [
    `seed           ${report.seed}`,
    `phase          ${(report.phaseMs / 1000).toFixed(1)} s of mutations and faults, ` +
      `quiescence ${(report.quiesceMs / 1000).toFixed(1)} s`,
    `convergence    ${
      report.lastFaultToConvergedMs === undefined
        ? 'none'
        : `${(report.lastFaultToConvergedMs / 1000).toFixed(1)} s`
    } from the last fault to a matching store (at most ${(report.convergenceBudgetMs / 1000).toFixed(1)} s)`,
    `mutations      ${report.mutations.total} (created ${report.mutations.created}, ` +
      `updated ${report.mutations.updated}, deleted ${report.mutations.deleted})`,
    `faults         ${report.faultsTotal}: ` +
      FAULT_KINDS.map((k) => `${k} ${report.faults[k]}`).join(', '),
    `connections    ${report.connections} (reconnects ${report.reconnects}), ` +
      `relists ${report.relists}, 410 expired ${report.expired}, backoffs ${report.backoffs}`,
    `backed off on  ${
      Object.entries(report.backoffErrors)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([why, n]) => `${why} x${n}`)
        .join(', ') || 'nothing'
    }`,
    `disconnects    closed ${report.disconnects.closed}, too-short ${report.disconnects.tooShort}, ` +
      `error ${report.disconnects.error}`,
    `events         ${report.eventsDelivered} object events delivered`,
    `duplicates     ${report.duplicates}`,
    `regressions    ${report.regressions}`,
    `lost changes   ${report.lost} (pods: ${diff('pods')}; deployments: ${diff('deployments')})`,
    `store          pods ${report.storeObjects.pods} / server ${report.serverObjects.pods}, ` +
      `deployments ${report.storeObjects.deployments} / server ${report.serverObjects.deployments}`,
    `open sockets   server ${report.openSockets.server}, client handles ${report.openSockets.clientHandles}`,
    `rss            ${mb(report.rssBytes)} (peak ${mb(report.peakRssBytes)})`,
    ...report.samples.map((s) => `sample         ${s}`),
    report.failures.length === 0
      ? 'result         PASS'
      : `result         FAIL: ${report.failures.join('; ')}`,
  ];
}
