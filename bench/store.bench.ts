// Store and fan-out micro-benchmarks (not part of `npm test`). Run from the repository root:
//   node --expose-gc --import ./bench/register.mjs bench/store.bench.ts [--quick] [--rounds=7]
//     [--events=20000]   (or: node bench/run.mjs store)
// Prints medians of several rounds:
// 1. toStore: the cost of one event at 1 000, 10 000 and 100 000 stored objects, for MODIFIED
//    events spread over every pod or over 1 000 busy ones, and for churn (DELETED of one pod +
//    ADDED of a new one). Rounds take turns between toStore(), a bare subscriber and a mutable
//    Map on the same events; toStore's cost is its difference from the bare one, round by round.
// 2. Memory: heap per stored object, against the object's own heap size and its JSON size.
// 3. shareWatch: one watch fanned out to 1 000 subscribers, events/s and memory, beside rxjs
//    share() doing the same without any state, and the replay cost of a late subscriber.
import type { V1Pod } from '@kubernetes/client-node';
import { share, Subject, type Observable } from 'rxjs';
import { shareWatch } from '../src/index.js';
import { toStore } from '../src/index.js';
import type { Store } from '../src/index.js';
import { added, bookmark } from '../src/testing/marbles/builders.js';
import { podJson } from './storePods.js';
import type { WatchEvent } from '../src/types.js';

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const quick = process.argv.includes('--quick');
const ROUNDS = Number(option('rounds') ?? (quick ? 3 : 7));
const EVENTS_PER_ROUND = Number(option('events') ?? (quick ? 5_000 : 20_000));

function gc(): void {
  if (!globalThis.gc) throw new Error('run with node --expose-gc');
  globalThis.gc();
  globalThis.gc();
}

function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** A deterministic pseudo-random sequence (LCG), so every run touches the same keys. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const makePod = (i: number, rv: number) => JSON.parse(podJson(i, rv)) as V1Pod;

/** A new version of `pod`, as a fresh object, the way a watch delivers a MODIFIED event. */
function touched(pod: V1Pod, resourceVersion: number): V1Pod {
  return { ...pod, metadata: { ...pod.metadata, resourceVersion: String(resourceVersion) } };
}

interface Rig {
  input: Subject<WatchEvent<V1Pod>>;
  /** The latest version of each pod this rig was told about. */
  pods: V1Pod[];
  names: readonly string[];
}

/** A Subject that has delivered an ADDED for each of `pods` and the initial-events-end bookmark. */
function loaded(
  pods: readonly V1Pod[],
  attach: (input: Observable<WatchEvent<V1Pod>>) => void,
): Rig {
  const input = new Subject<WatchEvent<V1Pod>>();
  attach(input);
  for (const pod of pods) input.next(added(pod));
  input.next(bookmark(String(pods.length), { initialEventsEnd: true }));
  return { input, pods: [...pods], names: pods.map((p) => p.metadata!.name!) };
}

/** Which stored pod the next event is about. */
type Pattern = (n: number) => () => number;

// Every pod alike: the worst case for caches, each event touches a cold path.
const uniform: Pattern = (n) => {
  const next = lcg(n);
  return () => Math.floor(next() * n);
};
// A fixed set of 1 000 busy pods (a rollout), whatever the store holds: isolates the algorithmic
// cost (tree depth) from the memory hierarchy's.
const hot: Pattern = (n) => {
  const next = lcg(n);
  const stride = Math.max(1, Math.floor(n / 1000));
  return () => Math.floor(next() * Math.min(n, 1000)) * stride;
};

/**
 * ns per event for `count` events. Each event is made just before it is delivered, as a watch
 * parses it just before, so it is in cache like a real one.
 */
type Round = (rig: Rig, count: number, pick: () => number, rv: { value: number }) => number;

/** MODIFIED events, each a new version of a stored pod. */
const modifications: Round = ({ input, pods }, count, pick, rv) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const k = pick();
    const object = touched(pods[k]!, ++rv.value);
    pods[k] = object;
    input.next({ type: 'MODIFIED', object, resourceVersion: object.metadata!.resourceVersion });
  }
  return Number(process.hrtime.bigint() - start) / count;
};

/** Events alternating DELETED of a stored pod and ADDED of a new one. */
const churn: Round = ({ input, pods, names }, count, pick, rv) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i += 2) {
    const k = pick();
    const gone = pods[k]!;
    input.next({ type: 'DELETED', object: gone, resourceVersion: String(++rv.value) });
    const object = touched(gone, ++rv.value);
    object.metadata!.name = `${names[k]}-r${rv.value}`;
    pods[k] = object;
    input.next({ type: 'ADDED', object, resourceVersion: String(rv.value) });
  }
  return Number(process.hrtime.bigint() - start) / count;
};

/** A mutable Map updated from the same events: what the memory hierarchy costs any map. */
function intoMap(input: Observable<WatchEvent<V1Pod>>): Map<string, V1Pod> {
  const map = new Map<string, V1Pod>();
  input.subscribe((e) => {
    if (e.type === 'ERROR' || e.type === 'BOOKMARK') return;
    const key = `${e.object.metadata!.namespace}/${e.object.metadata!.name}`;
    if (e.type === 'DELETED') map.delete(key);
    else map.set(key, e.object);
  });
  return map;
}

function storeUpdates(): void {
  console.log('\n1. toStore: cost of one event, median ns over a bare subscriber (same events)');
  console.log('   Map: a mutable Map updated instead, no snapshots: what the memory hierarchy');
  console.log('   costs any map at that size (uniform keys miss the caches at 100 000)');
  console.log('   objects | scenario           | bare | toStore |  Map');
  const scenarios = [
    ['MODIFIED, uniform', modifications, uniform],
    ['MODIFIED, hot 1000', modifications, hot],
    ['DELETED+ADDED', churn, uniform],
  ] as const;
  for (const n of [1_000, 10_000, 100_000]) {
    const pods = Array.from({ length: n }, (_, i) => makePod(i, i + 1));
    for (const [name, round, pattern] of scenarios) {
      let seen = 0;
      let last: Store<V1Pod> | undefined;
      let map: Map<string, V1Pod> | undefined;
      // The three share the parsed pods, and take turns round by round, so that drift in the
      // machine's load hits them alike; their differences are paired per round.
      const rigs = [
        loaded(pods, (input) => input.subscribe(() => seen++)),
        loaded(pods, (input) => input.pipe(toStore()).subscribe((s) => (last = s))),
        loaded(pods, (input) => (map = intoMap(input))),
      ];
      const picks = rigs.map(() => pattern(n));
      const rv = { value: n + 1 };
      const times: number[][] = [[], [], []];
      gc();
      for (let r = -1; r < ROUNDS; r++) {
        // Whoever goes first in a round pays for the garbage of the round before: rotate.
        for (let j = 0; j < rigs.length; j++) {
          const i = (r + 1 + j) % rigs.length;
          const t = round(rigs[i]!, EVENTS_PER_ROUND, picks[i]!, rv);
          if (r >= 0) times[i]!.push(t); // round -1 warms up
        }
      }
      if (last?.size !== n || map?.size !== n || seen === 0) throw new Error('lost objects');
      const [bare, store, reference] = times as [number[], number[], number[]];
      const over = (xs: number[]) => median(xs.map((x, i) => x - bare[i]!));
      console.log(
        `   ${String(n).padStart(7)} | ${name.padEnd(18)} | ${median(bare).toFixed(0).padStart(4)} | ${over(store).toFixed(0).padStart(7)} | ${over(reference).toFixed(0).padStart(4)}`,
      );
    }
  }
}

function storeMemory(): void {
  const n = quick ? 20_000 : 100_000;
  console.log(`\n2. Memory at ${n} pods (bytes per object)`);
  let jsonBytes = 0;
  const texts: string[] = [];
  for (let i = 0; i < n; i++) texts.push(podJson(i, i + 1));
  for (const text of texts) jsonBytes += Buffer.byteLength(text);
  const before = heapUsed();
  const pods = texts.map((text) => JSON.parse(text) as V1Pod);
  const withObjects = heapUsed();
  const input = new Subject<WatchEvent<V1Pod>>();
  let last: Store<V1Pod> | undefined;
  input.pipe(toStore()).subscribe((s) => (last = s));
  for (const pod of pods) input.next(added(pod));
  const withStore = heapUsed();
  if (last?.size !== n) throw new Error('store lost objects');
  const perObject = (withObjects - before) / n;
  const perEntry = (withStore - withObjects) / n;
  console.log(`   JSON of one pod:               ${(jsonBytes / n).toFixed(0)}`);
  console.log(`   parsed pod on the heap:        ${perObject.toFixed(0)}`);
  console.log(
    `   store overhead per pod:        ${perEntry.toFixed(0)} (${((100 * perEntry) / (jsonBytes / n)).toFixed(1)}% of its JSON; key string + tree slots)`,
  );
  console.log(`   store with its pods, per pod:  ${(perObject + perEntry).toFixed(0)}`);
  const beforeShared = heapUsed();
  const upstream = new Subject<WatchEvent<V1Pod>>();
  const subscription = upstream.pipe(shareWatch()).subscribe();
  for (const pod of pods) upstream.next(added(pod));
  const perShared = (heapUsed() - beforeShared) / n;
  console.log(
    `   shareWatch state per pod:      ${perShared.toFixed(0)} (what a late joiner replays)`,
  );
  subscription.unsubscribe();
  texts.length = 0;
  pods.length = 0;
}

function fanOut(): void {
  const subscribers = 1_000;
  const objects = 1_000;
  const events = quick ? 2_000 : 10_000;
  console.log(`\n3. Fan-out: one watch, ${subscribers} subscribers, ${objects} objects known`);
  for (const [name, operator] of [
    ['shareWatch()', shareWatch<WatchEvent<V1Pod>>()],
    ['rxjs share() (no state, no replay)', share<WatchEvent<V1Pod>>()],
  ] as const) {
    const input = new Subject<WatchEvent<V1Pod>>();
    const shared = input.pipe(operator);
    let delivered = 0;
    const before = heapUsed();
    const subs = Array.from({ length: subscribers }, () => shared.subscribe(() => delivered++));
    const perSubscriber = (heapUsed() - before) / subscribers;
    const rig = loaded(
      Array.from({ length: objects }, (_, i) => makePod(i, i + 1)),
      (i) => i.subscribe(input),
    );
    const pick = uniform(objects);
    const rv = { value: objects + 1 };
    const rates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) rates.push(1e9 / modifications(rig, events, pick, rv));
    const rate = median(rates);
    console.log(
      `   ${name.padEnd(36)} ${rate.toFixed(0).padStart(7)} events/s = ${((rate * subscribers) / 1e6).toFixed(1)} M deliveries/s; ${perSubscriber.toFixed(0)} B per subscriber`,
    );
    if (delivered === 0) throw new Error('nothing delivered');
    for (const sub of subs) sub.unsubscribe();
  }
  // What joining late costs: the replay of every known object.
  const input = new Subject<WatchEvent<V1Pod>>();
  const shared = input.pipe(shareWatch());
  const keep = shared.subscribe();
  const n = quick ? 10_000 : 100_000;
  for (let i = 0; i < n; i++) input.next({ type: 'ADDED', object: makePod(i, i + 1) });
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let replayed = 0;
    const start = process.hrtime.bigint();
    shared.subscribe(() => replayed++).unsubscribe();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (replayed !== n) throw new Error(`replayed ${replayed} of ${n}`);
  }
  console.log(`   late subscriber replay of ${n} objects: ${median(times).toFixed(1)} ms`);
  keep.unsubscribe();
}

console.log(`node ${process.version}, ${ROUNDS} rounds of ${EVENTS_PER_ROUND} events`);
storeUpdates();
storeMemory();
fanOut();
