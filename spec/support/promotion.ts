// What V8 promotes to old space while a stream runs, for the promotion spec (issue 28): a stream
// paced like a busy API server's (a chunk of items per macrotask, each parsed afresh, since GC
// needs real allocation), a full GC after its warm-up (what a long-lived watch meets sooner or
// later: it moves the consumer's own structures into old space, where the trap lives), then a
// measured window whose scavenges' promotions are summed by V8's GC profiler.
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Observable, of } from 'rxjs';
import { pods } from '../../src/objects/resources.js';
import { createWatchSource, type WatchSource } from '../../src/sources/WatchSource.js';
import type { ClusterConnection, KubernetesObject, WatchEvent } from '../../src/types.js';

/** The live set of the pod stream. */
export const PODS = 100;
/** Each pod: ADDED, 8x MODIFIED, DELETED, then re-created under the same name (the bench's cycle). */
const CYCLE = ['ADDED', ...Array<string>(8).fill('MODIFIED'), 'DELETED'];

/** How many items a stream emits before and during its measured window, and per macrotask. */
export interface Plan {
  warmUp: number;
  measured: number;
  perChunk: number;
}

/** About 64 KiB of a busy API server's pod stream per macrotask. */
export const POD_PLAN: Plan = { warmUp: 5_000, measured: 30_500, perChunk: 20 };

/** What the scavenges of a measured window moved into old space. */
export interface GcWindow {
  promoted: number;
  scavenges: number;
}

/** Never connected to: the sources are in memory. */
export const cluster: ClusterConnection = {
  name: 'memory',
  resolve: () => Promise.reject(new Error('in memory')),
};

/** A pod of about 2.5 KB of JSON, as a line of the watch (its version patched in per event). */
function podLine(index: number): string {
  const name = `web-${index}-7f9c8d6b5-x${index.toString(36).padStart(4, '0')}`;
  const container = (n: number): object => ({
    name: `container-${n}`,
    image: `registry.example.com/team/app-${n}:1.${index}.0`,
    ports: [{ containerPort: 8080 + n, protocol: 'TCP' }],
    env: Array.from({ length: 6 }, (_, i) => ({ name: `ENV_${i}`, value: `value-${index}-${i}` })),
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  });
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `team-${index % 7}`,
      uid: `0b7e0a4c-${index.toString(16).padStart(4, '0')}-4d6e-9c1a-5f2b3c4d5e6f`,
      resourceVersion: '0',
      labels: { app: `web-${index}`, 'pod-template-hash': '7f9c8d6b5', tier: 'frontend' },
      annotations: { 'kubernetes.io/psp': 'restricted', note: 'x'.repeat(200) },
    },
    spec: { nodeName: `node-${index % 13}`, containers: [container(0), container(1)] },
    status: {
      phase: 'Running',
      podIP: `10.0.${index >> 8}.${index & 255}`,
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      })),
    },
  });
}

const lines = Array.from({ length: PODS }, (_, i) => podLine(i));

/** The event `n` of the pod stream, parsed afresh (as the watch decoder does), at version n + 2. */
function eventAt(n: number): WatchEvent<KubernetesObject> {
  const object = JSON.parse(lines[n % PODS]) as KubernetesObject;
  const resourceVersion = String(n + 2);
  object.metadata!.resourceVersion = resourceVersion;
  const type = CYCLE[Math.floor(n / PODS) % CYCLE.length] as 'ADDED' | 'MODIFIED' | 'DELETED';
  return { type, object, resourceVersion };
}

/** The resourceVersion of the last event of a pod stream run with `plan`. */
export function lastVersion(plan: Plan = POD_PLAN): string {
  return String(plan.warmUp + plan.measured + 1);
}

/** V8's `gc()`, without starting jest with --expose-gc. */
function fullGc(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** The bytes of old space (and large objects) in a GC profiler's heap statistics. */
function oldBytes(spaces: v8.HeapSpaceStatistics[]): number {
  return spaces
    .filter(({ spaceName }) => spaceName === 'old_space' || spaceName === 'large_object_space')
    .reduce((sum, { spaceUsedSize }) => sum + spaceUsedSize, 0);
}

function scavengeWindow(profiler: v8.GCProfiler): GcWindow {
  const window: GcWindow = { promoted: 0, scavenges: 0 };
  for (const { gcType, beforeGC, afterGC } of profiler.stop().statistics) {
    if (gcType !== 'Scavenge') continue;
    window.scavenges++;
    // A scavenge can also free a little of old space (swept pages); that must not offset what
    // another scavenge promoted.
    window.promoted += Math.max(
      0,
      oldBytes(afterGC.heapSpaceStatistics) - oldBytes(beforeGC.heapSpaceStatistics),
    );
  }
  return window;
}

/**
 * A cold stream of `at(0)`, `at(1)`... paced by `plan`; `ended` gets the measured window after
 * the last item.
 */
export function pacedStream<T>(
  at: (n: number) => T,
  plan: Plan,
  ended: (window: GcWindow) => void,
): Observable<T> {
  const total = plan.warmUp + plan.measured;
  return new Observable<T>((subscriber) => {
    let n = 0;
    let profiler: v8.GCProfiler | undefined;
    let timer: NodeJS.Immediate | undefined;
    const chunk = (): void => {
      for (let i = 0; i < plan.perChunk && !subscriber.closed; i++) subscriber.next(at(n++));
      if (n === plan.warmUp) {
        fullGc();
        profiler = new v8.GCProfiler();
        profiler.start();
      }
      if (n < total) timer = setImmediate(chunk);
      else ended(scavengeWindow(profiler!));
    };
    timer = setImmediate(chunk);
    return () => clearImmediate(timer);
  });
}

/** An in-memory pod watch: an empty list at version 1, then one connection that never drops. */
export function podWatchSource(ended: (window: GcWindow) => void): WatchSource<KubernetesObject> {
  const stream = pacedStream(eventAt, POD_PLAN, ended);
  return createWatchSource<KubernetesObject>({
    cluster,
    resource: pods,
    options: {},
    connect: () => stream,
    list: () => of({ items: [], resourceVersion: '1' }),
  });
}

/** A measured window, with the last value the consumer emitted and how many. */
export interface Measured<V> extends GcWindow {
  last: V | undefined;
  count: number;
}

/**
 * Subscribes the consumer `build` makes around a paced stream (it hands `ended` to that stream),
 * and unsubscribes once the stream has ended and what it started has settled.
 */
export function measure<V>(
  build: (ended: (window: GcWindow) => void) => Observable<V>,
): Promise<Measured<V>> {
  return new Promise((resolve, reject) => {
    const result: Measured<V> = { promoted: 0, scavenges: 0, last: undefined, count: 0 };
    const subscription = build((window) =>
      setImmediate(() => {
        subscription.unsubscribe();
        resolve({ ...result, ...window });
      }),
    ).subscribe({
      next: (value) => {
        result.last = value;
        result.count++;
      },
      error: reject,
    });
  });
}

/** A pod stream's measured window through `pipe`. */
export function measurePods<V>(
  pipe: (source: WatchSource<KubernetesObject>) => Observable<V>,
): Promise<Measured<V>> {
  return measure((ended) => pipe(podWatchSource(ended)));
}
