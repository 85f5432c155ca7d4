/**
 * The resumer's property (issue 39), driven over loopback by the test kit: any interleaving of
 * creates, updates, deletes, dropped connections, expired history (410 Gone, then a relist) and
 * pauses ends with a store equal to the server's objects (every key at its last version), and
 * no change seen twice (each key's versions only grow). Costly per run (a real server), so few
 * runs in `npm test` and a small share of a fuzz run's count.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import fc from 'fast-check';
import type { V1Pod } from '@kubernetes/client-node';
import { tap } from 'rxjs';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { toStore } from '../../src/operators/toStore.js';
import type { Store } from '../../src/operators/store/Store.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { checkProperty } from './settings.js';

type Op =
  | { op: 'create' | 'update' | 'delete'; name: string }
  | { op: 'disconnect' }
  | { op: 'expire' }
  | { op: 'pause'; ms: number }
  /** The connection drops, changes happen, and the history that would replay them expires. */
  | { op: 'outage'; changes: Array<{ op: 'create' | 'update' | 'delete'; name: string }> };

const change = fc.record({
  op: fc.constantFrom('create' as const, 'update' as const, 'delete' as const),
  name: fc.constantFrom('a', 'b', 'c', 'd'),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('outage' as const),
      changes: fc.array(change, { minLength: 1, maxLength: 4 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constantFrom('create' as const, 'update' as const, 'delete' as const),
      name: fc.constantFrom('a', 'b', 'c', 'd'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'disconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'expire' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('pause' as const),
      ms: fc.integer({ min: 0, max: 15 }),
    }),
  },
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: FakeKubeApiServer;
let run = 0;
beforeAll(async () => {
  server = await FakeKubeApiServer.start({ historySize: 8, bookmarkIntervalMs: 50 });
});
afterAll(() => server.stop());

/** Applies one operation to the server, as a change of the cluster or a fault. */
function apply(o: Op, namespace: string): Promise<unknown> | void {
  if (o.op === 'pause') return sleep(o.ms);
  if (o.op === 'disconnect') return server.disconnectAll();
  if (o.op === 'expire') return server.expireHistory();
  if (o.op === 'outage') return outage(o.changes, namespace);
  const existing = server.get(pods, namespace, o.name);
  if (o.op === 'delete') return void (existing && server.delete(pods, namespace, o.name));
  const object: V1Pod = {
    metadata: { name: o.name, namespace, labels: { v: String(Math.random()).slice(2, 8) } },
  };
  if (existing === undefined) server.create(pods, object);
  else
    server.update(pods, {
      ...object,
      metadata: { ...object.metadata, resourceVersion: existing.metadata?.resourceVersion },
    });
}

/** After the watch caught up: a drop, changes it cannot see, their history gone (410, relist). */
async function outage(changes: Array<Op & { name: string }>, namespace: string) {
  await sleep(20);
  server.disconnectAll();
  for (const c of changes) void apply(c, namespace);
  server.expireHistory();
}

const summary = (objects: readonly V1Pod[]) =>
  JSON.stringify(objects.map((p) => [p.metadata?.name, p.metadata?.resourceVersion]).sort());

describe('resumer property', () => {
  it('any interleaving of changes and faults ends at the server state, nothing seen twice', async () => {
    await checkProperty(
      'resumer: the store converges to the server, no change twice',
      fc.asyncProperty(fc.array(op, { maxLength: 20 }), async (ops) => {
        const namespace = `run-${++run}`;
        let latest: Store<V1Pod> | undefined;
        let repeated = false;
        const seen = new Map<string, number>();
        const subscription = resilientWatch(
          server.kubeConfig(),
          pods,
          { namespace },
          { random: () => 0 },
        )
          .pipe(
            tap((event) => {
              if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
              const name = event.object.metadata?.name ?? '';
              const rv = Number(event.object.metadata?.resourceVersion);
              if (rv <= (seen.get(name) ?? -1)) repeated = true;
              seen.set(name, rv);
            }),
            toStore(),
          )
          .subscribe((store) => (latest = store as Store<V1Pod>));
        try {
          // Objects to start with, so that an early outage has something to miss.
          for (const name of ['a', 'b']) void apply({ op: 'create', name }, namespace);
          for (const o of ops) await apply(o, namespace);
          const deadline = Date.now() + 8000;
          while (Date.now() < deadline) {
            const want = summary(server.objects(pods, namespace));
            if (latest?.synced && summary(latest.values()) === want) return !repeated;
            await sleep(10);
          }
          return false;
        } finally {
          subscription.unsubscribe();
        }
      }),
      16,
      0.002,
    );
  }, 120_000);
});
