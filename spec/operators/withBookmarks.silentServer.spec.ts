// A server that never sends bookmarks (some aggregated API servers do not), watched through the
// recommended pipeline with a short idle timeout: every quiet spell longer than the timeout ends
// the connection, and the pipeline must reconnect from its cursor each time, never relist, and
// lose or repeat nothing. Real HTTP against FakeKubeApiServer, real timers.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Subscription } from 'rxjs';
import {
  resumeFromResourceVersion,
  withBookmarks,
  type LifecycleEvent,
} from '../../src/operators/index.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';
import { sleep, until } from '../support/wait.js';

const IDLE_TIMEOUT = 300;

let server: FakeKubeApiServer | undefined;
let subscription: Subscription | undefined;
afterEach(async () => {
  subscription?.unsubscribe();
  await server?.stop();
  server = subscription = undefined;
});

type ObjectEvent = Exclude<WatchEvent, { type: 'ERROR' }>;
const versionOf = (e: ObjectEvent) => e.object.metadata?.resourceVersion;
const keyOf = (e: ObjectEvent) => `${e.object.metadata?.namespace}/${e.object.metadata?.name}`;
const isChange = (e: WatchEvent): e is Exclude<ObjectEvent, { type: 'BOOKMARK' }> =>
  e.type !== 'ERROR' && e.type !== 'BOOKMARK';

/** `key@resourceVersion` of every change the pipeline delivered (initial listing included). */
const deliveredChanges = (events: WatchEvent[]) =>
  events.filter(isChange).map((e) => `${e.type} ${keyOf(e)}@${versionOf(e)}`);

/** The objects the delivered events leave, as `key@resourceVersion`, sorted. */
function storeOf(events: WatchEvent[]): string[] {
  const store = new Map<string, string>();
  for (const e of events.filter(isChange)) {
    if (e.type === 'DELETED') store.delete(keyOf(e));
    else store.set(keyOf(e), `${keyOf(e)}@${versionOf(e)}`);
  }
  return [...store.values()].sort();
}

const serverObjects = (s: FakeKubeApiServer) =>
  s
    .objects(pods)
    .map((p) => `${p.metadata!.namespace}/${p.metadata!.name}@${p.metadata!.resourceVersion}`)
    .sort();

describe('withBookmarks + resumeFromResourceVersion against a server that never sends bookmarks', () => {
  it('runs for several idle timeouts: reconnects from the cursor only, no relist, nothing lost or repeated', async () => {
    const s = (server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 }));
    const made: string[] = [];
    const created = (name: string) => {
      const p = s.create(pods, pod(name, ''));
      made.push(`ADDED default/${name}@${p.metadata!.resourceVersion}`);
    };
    created('a');
    created('b');

    const events: WatchEvent[] = [];
    const lifecycle: LifecycleEvent[] = [];
    let failed: unknown;
    // What each reconnect asked for, beside the version of the last event delivered before it.
    const reconnects: Array<{ asked: string | undefined; cursor: string | undefined }> = [];
    const onLifecycle = (event: LifecycleEvent) => {
      lifecycle.push(event);
      if (event.type !== 'connecting') return;
      const last = events.filter((e): e is ObjectEvent => e.type !== 'ERROR').at(-1);
      reconnects.push({ asked: event.resourceVersion, cursor: last && versionOf(last) });
    };
    // The recommended pipeline, as a consumer writes it.
    subscription = fromWatch<KubernetesObject>(s.kubeConfig(), pods)
      .pipe(
        withBookmarks({ idleTimeout: IDLE_TIMEOUT }),
        resumeFromResourceVersion({ random: () => 0.01, onLifecycle }),
      )
      .subscribe({ next: (e) => events.push(e), error: (e: unknown) => (failed = e) });
    await until(() => lifecycle.some((e) => e.type === 'relist-end'), 'the initial listing');

    // Quiet spells longer than the idle timeout between bursts of changes.
    const plan: Array<[gapMs: number, change: () => void]> = [
      [50, () => created('c')],
      [2.5 * IDLE_TIMEOUT, () => created('d')],
      [
        10,
        () =>
          made.push(
            `MODIFIED default/a@${s.update(pods, pod('a', '', { status: { phase: 'Failed' } })).metadata!.resourceVersion}`,
          ),
      ],
      [
        3 * IDLE_TIMEOUT,
        () =>
          made.push(
            `DELETED default/b@${s.delete(pods, 'default', 'b')!.metadata!.resourceVersion}`,
          ),
      ],
      [20, () => created('e')],
      [2 * IDLE_TIMEOUT, () => created('f')],
      [
        3 * IDLE_TIMEOUT,
        () =>
          made.push(
            `MODIFIED default/c@${s.update(pods, pod('c', '', { status: { phase: 'Succeeded' } })).metadata!.resourceVersion}`,
          ),
      ],
    ];
    for (const [gap, change] of plan) {
      await sleep(gap);
      change();
    }
    await until(
      () => storeOf(events).join() === serverObjects(s).join(),
      () =>
        `the store ${JSON.stringify(storeOf(events))} to equal the server ${JSON.stringify(serverObjects(s))}`,
    );
    await sleep(2 * IDLE_TIMEOUT); // one more quiet spell at the end

    expect(failed).toBeUndefined();
    // Every change once, in order; nothing else.
    expect(deliveredChanges(events)).toEqual(made);
    expect(storeOf(events)).toEqual(serverObjects(s));
    // Several idle timeouts happened, each ended by the pipeline as an idle connection.
    const idle = lifecycle.filter(
      (event) => event.type === 'disconnected' && /idle/.test(event.error?.message ?? ''),
    );
    expect(idle.length).toBeGreaterThanOrEqual(4);
    // One list (the first); every reconnect asked for the version of the last change delivered.
    expect(lifecycle.filter((event) => event.type === 'relist-start')).toHaveLength(1);
    expect(s.requests.filter((r) => !r.watch)).toHaveLength(1);
    expect(reconnects.length).toBeGreaterThanOrEqual(idle.length);
    for (const { asked, cursor } of reconnects) expect(asked).toBe(cursor);
    const asked = s.requests.filter((r) => r.watch).map((r) => Number(r.query.resourceVersion));
    expect(asked.every((v) => v > 0)).toBe(true);
    expect(asked).toEqual([...asked].sort((x, y) => x - y));
  });
});
