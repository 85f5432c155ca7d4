// No per-event path of kube-rx may make V8 promote the short-lived objects of a watch (DESIGN,
// Known traps; issue 28): a long-lived keyed structure that deletes keys and adds them again
// leaves its replaced hash tables in old space, and every object they pointed at survives the
// next scavenge, so old space grows by about the live set at every scavenge. Each path is run
// here over a stream whose live set stays put, and what each scavenge moved into old space is
// bounded far from both what the path costs and what it costs with the trap (each bound says
// both, measured by breaking each path on purpose). The bounds depend on what survives, not on
// the machine's load.
import { describe, expect, it } from '@jest/globals';
import { Observable, startWith, tap } from 'rxjs';
import { Action } from '../../src/controller/Action.js';
import { reconcileQueue } from '../../src/controller/reconcileQueue.js';
import type { ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { pods } from '../../src/objects/resources.js';
import { changedBy } from '../../src/operators/changedBy.js';
import { createInformers } from '../../src/operators/createInformers.js';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { shareWatch } from '../../src/operators/shareWatch.js';
import type { Store } from '../../src/operators/store/Store.js';
import { toStore } from '../../src/operators/toStore.js';
import type { WatchSource } from '../../src/sources/WatchSource.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';
import {
  cluster,
  lastVersion,
  measure,
  measurePods,
  pacedStream,
  PODS,
  POD_PLAN,
  type GcWindow,
  type Plan,
} from '../support/promotion.js';

type Pod = KubernetesObject & { spec?: { nodeName?: string } };

/**
 * With the trap on any of these paths, a scavenge of the pod stream promotes 530-1 040 KB (the
 * live pods, again and again); without, 55-125 KB (what JSON.parse of the events leaves anyway).
 */
const POD_BOUND = 300_000;

const indexes = {
  byNode: (pod: Pod) => pod.spec?.nodeName,
  byApp: (pod: Pod) => pod.metadata?.labels?.app,
};

const resumed = (source: WatchSource<KubernetesObject>): Observable<WatchEvent<KubernetesObject>> =>
  resilientWatch(cluster, pods, {}, { source: () => source });

/** Enough allocation for scavenges to happen (else nothing was measured), and few promoted. */
function expectQuiet({ promoted, scavenges }: GcWindow, bound: number): void {
  expect(scavenges).toBeGreaterThanOrEqual(4);
  expect(promoted / scavenges).toBeLessThan(bound);
}

/** The pod stream into a store through `pipe`: the store is up to date at the end. */
async function expectQuietStore(
  pipe: (source: WatchSource<KubernetesObject>) => Observable<Store<Pod, string>>,
): Promise<Store<Pod, string>> {
  let largest = 0;
  const run = await measurePods((source) =>
    pipe(source).pipe(tap((store) => (largest = Math.max(largest, store.size)))),
  );
  expect(largest).toBe(PODS);
  expect(run.last?.resourceVersion).toBe(lastVersion());
  expect(run.last?.size).toBe(PODS);
  expectQuiet(run, POD_BOUND);
  return run.last!;
}

/** Each index files every live pod once: the indexes followed the stream. */
function expectIndexed(store: Store<Pod, string>): void {
  const byNode = Array.from({ length: 13 }, (_, i) => store.byIndex('byNode', `node-${i}`));
  expect(byNode.reduce((sum, filed) => sum + filed.length, 0)).toBe(PODS);
  expect(store.byIndex('byApp', 'web-7').map((pod) => pod.metadata?.name)).toEqual([
    'web-7-7f9c8d6b5-x0007',
  ]);
}

/** How many ADDED, MODIFIED and DELETED events the pod stream has in all. */
const EVENTS = POD_PLAN.warmUp + POD_PLAN.measured;

const isChange = (event: WatchEvent<unknown>): boolean =>
  event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED';

describe('the per-event paths and the garbage collector, with a live set of 100 pods', () => {
  it('the recommended pipeline (resilientWatch, toStore) does not grow old space', async () => {
    await expectQuietStore((source) => resumed(source).pipe(toStore()));
  });

  it('a store with two indexes does not grow old space', async () => {
    const store = await expectQuietStore((source) => resumed(source).pipe(toStore({ indexes })));
    expectIndexed(store);
  });

  it("shareWatch's replay state, with a second subscriber, does not grow old space", async () => {
    let changes = 0;
    await expectQuietStore(
      (source) =>
        new Observable<Store<Pod, string>>((subscriber) => {
          const shared = resumed(source).pipe(shareWatch());
          const other = shared.subscribe((event) => (changes += isChange(event) ? 1 : 0));
          const store = shared.pipe(toStore()).subscribe(subscriber);
          return () => (store.unsubscribe(), other.unsubscribe());
        }),
    );
    expect(changes).toBe(EVENTS);
  });

  it('a createInformers store with two indexes does not grow old space', async () => {
    const store = await expectQuietStore((source) =>
      createInformers({ source: () => source }).store(cluster, pods, {}, { indexes }),
    );
    expectIndexed(store);
  });

  it('changedBy (a short string per live key) does not grow old space', async () => {
    const run = await measurePods((source) =>
      // Every event has a new version: each passes, and each sets its key's value.
      resumed(source).pipe(changedBy((pod: KubernetesObject) => pod.metadata?.resourceVersion)),
    );
    expect(run.last).toMatchObject({ type: 'MODIFIED', resourceVersion: lastVersion() });
    // Every change and the initial-events-end bookmark of the empty list.
    expect(run.count).toBe(EVENTS + 1);
    expectQuiet(run, POD_BOUND);
  });
});

/** Keys cycle over this many objects: each is triggered, runs, goes idle, is triggered again. */
const KEYS = 500;
const QUEUE_PLAN: Plan = { warmUp: 10_000, measured: 100_000, perChunk: 20 };
/**
 * With slots deleted one by one (or, where every key goes idle, the Map cleared rather than
 * dropped), a scavenge promotes 1.5-1.7 MB (the slots and keys of the triggers since the last
 * one); without, under 2 KB.
 */
const QUEUE_BOUND = 100_000;

/** What a watch hands a controller per trigger: an object parsed afresh, and its key. */
const objectLines = Array.from({ length: KEYS }, (_, i) =>
  JSON.stringify({
    metadata: {
      name: `app-${i}`,
      namespace: `team-${i % 7}`,
      uid: `0b7e0a4c-${i.toString(16).padStart(4, '0')}-4d6e-9c1a-5f2b3c4d5e6f`,
      resourceVersion: String(i),
      labels: { app: `app-${i}`, tier: 'frontend' },
    },
    spec: { replicas: 3, selector: { matchLabels: { app: `app-${i}` } } },
  }),
);

function triggerAt(n: number): string {
  const { metadata } = JSON.parse(objectLines[n % KEYS]) as Required<KubernetesObject>;
  return `${metadata.namespace}/${metadata.name}`;
}

/** A key that is never idle (it asks to run again every millisecond), or none. */
async function expectQuietQueue(poller?: string): Promise<void> {
  let runs = 0;
  const reconcile = (key: string): Promise<Action | void> => {
    if (key === poller) return Promise.resolve(Action.requeueAfter(1));
    runs++;
    return Promise.resolve();
  };
  const reports: Record<string, number> = {};
  const run = await measure<ReconcileReport>((ended) => {
    const triggers = pacedStream(triggerAt, QUEUE_PLAN, ended);
    return (poller === undefined ? triggers : triggers.pipe(startWith(poller))).pipe(
      reconcileQueue(reconcile, { rateLimit: false }),
      tap(({ outcome }) => (reports[outcome] = (reports[outcome] ?? 0) + 1)),
    );
  });
  // Each trigger found its key idle: one run and one report each; the poller kept polling.
  const triggers = QUEUE_PLAN.warmUp + QUEUE_PLAN.measured;
  expect(runs).toBe(triggers);
  expect(reports.done).toBe(triggers);
  if (poller !== undefined) expect(reports.requeue).toBeGreaterThan(10);
  expectQuiet(run, QUEUE_BOUND);
}

describe('the controller queue and the garbage collector', () => {
  it('reconcileQueue does not grow old space while keys come and go', async () => {
    // Every key goes idle between two chunks: the queue drops its Map of slots whole.
    await expectQuietQueue();
  });

  it('nor while one key never goes idle, so the Map of slots stays', async () => {
    await expectQuietQueue('default/poller');
  });
});
