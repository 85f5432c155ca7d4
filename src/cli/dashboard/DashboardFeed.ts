import type { V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { asyncScheduler, tap, throttleTime, type Subscription } from 'rxjs';
import { mergeWatches } from '../../index.js';
import type { LifecycleEvent } from '../../index.js';
import { shareWatch } from '../../index.js';
import { ownerIndex } from '../../index.js';
import { toStore, type MergedStore } from '../../index.js';
import { stripManagedFields } from '../../index.js';
import { deployments, pods, replicasets } from '../../objects/resources.js';
import type { Cluster, WatchOptions } from '../../types.js';
import { describeFailure } from '../CliError.js';
import { LifecycleReporter, type ConnectionState } from '../LifecycleReporter.js';
import { resilientWatch } from '../../index.js';
import { dashboardRows, type DashboardRow } from './dashboardRows.js';
import { BY_OWNER, podOwnersByIndex } from './podOwnership.js';
import { RowDiffer, type RowDiff } from './RowDiffer.js';

/** What the page shows about the feed itself, sent on every change and once a second. */
export interface FeedStatus {
  cluster: string;
  demo: boolean;
  /** The namespace shown, or null for every namespace. */
  namespace: string | null;
  /** The worst state of the watches. */
  state: ConnectionState;
  sources: Record<Source, ConnectionState>;
  /** Every watch has listed once: the page matches the cluster. */
  synced: boolean;
  /** ADDED/MODIFIED/DELETED events received in the last second. */
  eventsPerSecond: number;
  totalEvents: number;
  /** The latest connection news, newest last. */
  log: Array<{ at: string; text: string }>;
  /** Why a watch failed for good, if one did. */
  error: string | null;
}

/** Options of {@link DashboardFeed}. */
export interface DashboardFeedOptions {
  cluster: Cluster;
  /** One namespace, or every namespace when absent. */
  namespace?: string;
  /** How the cluster is named on the page (the kubeconfig context). */
  clusterName: string;
  /** The API server URL, for messages. */
  server: string;
  demo?: boolean;
  /** Where connection news also goes (stderr). */
  warn?: (line: string) => void;
  /** The shortest time between two updates, in ms (default 100: at most 10 a second). */
  throttleMs?: number;
  /** Which view of the page this cluster is (default 0): every message carries it as `view`. */
  view?: number;
}

/**
 * A browser's view of the feed: Server-Sent Events text, `snapshot` first ({ view, rows, status }),
 * then `diff` ({@link RowDiff} and `view`) and `status` ({@link FeedStatus} and `view`) messages,
 * `view` being the index of the cluster on the page. Each message is serialised once, whatever the
 * number of browsers.
 */
export type FeedListener = (sseChunk: string) => void;

/**
 * One Server-Sent Events message: `event: name` and the JSON on one `data:` line (JSON.stringify
 * never writes a raw newline, so one line is always enough).
 *
 * @example
 * sseMessage('status', { state: 'live' }); // 'event: status\ndata: {"state":"live"}\n\n'
 */
export function sseMessage(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

// ReplicaSets link pods to their deployments down the owner indexes.
const SOURCES = ['deployments', 'pods', 'replicasets'] as const;
type Source = (typeof SOURCES)[number];
type Objects = { deployments: V1Deployment; pods: V1Pod; replicasets: V1ReplicaSet };
const LOG_LINES = 12;
const STATE_ORDER: ConnectionState[] = [
  'failed',
  'reconnecting',
  'relisting',
  'connecting',
  'live',
];

/**
 * The one pipeline a dashboard process runs per cluster, shared by every browser: three resilient
 * watches (deployments, pods, replicasets) merged by `mergeWatches`, shared by `shareWatch()`,
 * folded by `toStore()` with every object indexed by owner (`ownerIndex`: pods are found under
 * their ReplicaSet, ReplicaSets under their deployment), throttled to the latest state every
 * `throttleMs`, turned into rows and diffed. Browsers
 * subscribe to the diffs; a new one first gets every row. The watches start with `start()` and
 * keep running while there are no browsers, so a page opens on a warm cache.
 *
 * @example
 * const feed = new DashboardFeed({ cluster, clusterName: 'prod', server });
 * feed.start();
 * const { rows, status, unsubscribe } = feed.join((message) => send(message));
 */
export class DashboardFeed {
  private readonly listeners = new Set<FeedListener>();
  private readonly differ = new RowDiffer();
  private readonly reporters: Record<Source, LifecycleReporter> = {
    deployments: new LifecycleReporter('deployments'),
    pods: new LifecycleReporter('pods'),
    replicasets: new LifecycleReporter('replicasets'),
  };
  private readonly log: FeedStatus['log'] = [];
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;
  private synced = false;
  private latest?: MergedStore<Objects, typeof BY_OWNER>;
  /** The JSON of every row, until they change. */
  private rowsJson: string | undefined;
  private error: string | null = null;
  private totalEvents = 0;
  private countedAtLastSecond = 0;
  private eventsPerSecond = 0;

  constructor(private readonly options: DashboardFeedOptions) {}

  /** Starts the watches (once). */
  start(): void {
    if (this.subscription) return;
    const { cluster, namespace, throttleMs = 100 } = this.options;
    const watchOptions: WatchOptions = namespace ? { namespace } : {};
    const podOptions: WatchOptions = { ...watchOptions, transform: stripManagedFields };
    const events$ = mergeWatches(
      {
        deployments: resilientWatch<V1Deployment>(cluster, deployments, watchOptions, {
          onLifecycle: (event) => this.onLifecycle('deployments', event),
        }),
        pods: resilientWatch<V1Pod>(cluster, pods, podOptions, {
          onLifecycle: (event) => this.onLifecycle('pods', event),
        }),
        replicasets: resilientWatch<V1ReplicaSet>(cluster, replicasets, watchOptions, {
          onLifecycle: (event) => this.onLifecycle('replicasets', event),
        }),
      },
      // A watch that fails for good (403 on pods, say) shows its error; the other goes on.
      { isolateErrors: true },
    ).pipe(
      tap((event) => {
        if (event.type === 'ERROR') this.onFailure(event.source, event.error);
        else if (event.type !== 'BOOKMARK') this.totalEvents++;
      }),
      shareWatch(),
    );
    this.subscription = events$
      .pipe(
        toStore({ sources: [...SOURCES], indexes: { [BY_OWNER]: ownerIndex } }),
        throttleTime(throttleMs, asyncScheduler, { leading: true, trailing: true }),
      )
      .subscribe((store) => {
        const deploymentList = store.store('deployments').values();
        const podStore = store.store('pods');
        const owners = podOwnersByIndex(deploymentList, store.store('replicasets'), podStore);
        const rows = dashboardRows(deploymentList, podStore.values(), owners);
        const diff = this.differ.update(rows);
        if (diff.set.length > 0 || diff.remove.length > 0) {
          this.rowsJson = undefined;
          this.broadcast('diff', diff);
        }
        this.latest = store;
        this.checkSynced();
      });
    this.timer = setInterval(() => this.everySecond(), 1000);
    this.timer.unref();
  }

  /**
   * Adds a browser: returns the `snapshot` message it starts from (every row and the status),
   * and how to leave.
   *
   * @example
   * const { snapshot, unsubscribe } = feed.join((chunk) => response.write(chunk));
   * response.write(snapshot);
   */
  join(listener: FeedListener): { snapshot: string; unsubscribe: () => void } {
    this.listeners.add(listener);
    return {
      snapshot: this.snapshotMessage(),
      unsubscribe: () => void this.listeners.delete(listener),
    };
  }

  /**
   * The `snapshot` message a browser starts from, or skips ahead to. The rows are serialised once
   * per change, not once per browser: 300 browsers joining (or resyncing) at once cost one.
   */
  snapshotMessage(): string {
    this.rowsJson ??= JSON.stringify(this.differ.rows());
    const view = this.options.view ?? 0;
    return `event: snapshot\ndata: {"view":${view},"rows":${this.rowsJson},"status":${JSON.stringify(this.status())}}\n\n`;
  }

  /** Every row known and the status. */
  snapshot(): { rows: DashboardRow[]; status: FeedStatus } {
    return { rows: this.differ.rows(), status: this.status() };
  }

  /**
   * The store the rows were last built from (undefined before the first update): what the
   * process keeps of the cluster, pods without their managedFields.
   */
  store(): MergedStore<Objects, typeof BY_OWNER> | undefined {
    return this.latest;
  }

  /** Adds a line to the connection log (e.g. the demo announcing a fault). */
  note(text: string): void {
    this.log.push({ at: new Date().toISOString(), text });
    if (this.log.length > LOG_LINES) this.log.shift();
    this.broadcastStatus();
  }

  /** The status now. */
  status(): FeedStatus {
    const sources = {
      deployments: this.reporters.deployments.state,
      pods: this.reporters.pods.state,
      replicasets: this.reporters.replicasets.state,
    };
    const states = Object.values(sources);
    const state = STATE_ORDER.find((s) => states.includes(s)) ?? 'live';
    return {
      cluster: this.options.clusterName,
      demo: this.options.demo ?? false,
      namespace: this.options.namespace ?? null,
      state,
      sources,
      synced: this.synced,
      eventsPerSecond: this.eventsPerSecond,
      totalEvents: this.totalEvents,
      log: [...this.log],
      error: this.error,
    };
  }

  /** Stops the watches and forgets every browser. */
  stop(): void {
    this.subscription?.unsubscribe();
    clearInterval(this.timer);
    this.listeners.clear();
  }

  private onLifecycle(source: Source, event: LifecycleEvent): void {
    const before = this.reporters[source].state;
    const line = this.reporters[source].observe(event);
    if (line) {
      this.options.warn?.(`kube-rx: ${line}`);
      this.note(line);
    } else if (this.reporters[source].state !== before) this.broadcastStatus();
  }

  private onFailure(source: Source, error: unknown): void {
    this.reporters[source].fail();
    this.error = describeFailure(error, { what: source, server: this.options.server });
    this.options.warn?.(`kube-rx: ${this.error}`);
    this.note(this.error);
    this.checkSynced();
  }

  private checkSynced(): void {
    // A watch that failed for good will never sync; the page is then as complete as it gets.
    const synced = SOURCES.every(
      (source) =>
        this.latest?.store(source).synced === true || this.reporters[source].state === 'failed',
    );
    if (synced === this.synced) return;
    this.synced = synced;
    this.broadcastStatus();
  }

  private everySecond(): void {
    this.eventsPerSecond = this.totalEvents - this.countedAtLastSecond;
    this.countedAtLastSecond = this.totalEvents;
    this.broadcastStatus();
  }

  private broadcastStatus(): void {
    if (this.listeners.size > 0) this.broadcast('status', this.status());
  }

  private broadcast(event: 'diff' | 'status', data: RowDiff | FeedStatus): void {
    if (this.listeners.size === 0) return;
    const chunk = sseMessage(event, { ...data, view: this.options.view ?? 0 });
    for (const listener of this.listeners) listener(chunk);
  }
}
