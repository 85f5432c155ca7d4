// A server that never sends bookmarks (some aggregated API servers do not), watched through the
// recommended pipeline with a short idle timeout: every quiet spell longer than the timeout ends
// the connection, and the pipeline must reconnect from its cursor each time, never relist, and
// lose or repeat nothing. Real HTTP against FakeKubeApiServer, real timers.
import { afterEach, describe, expect, it } from '@jest/globals';
import { resourceVersionOf } from '../../src/operators/internal/events.js';
import type { LifecycleEvent } from '../../src/operators/resumeFromResourceVersion.js';
import { pods } from '../../src/sources/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../src/types.js';
import { PipelineRecording, keyOfEvent, resumedWatch } from '../support/resumedPipeline.js';
import { sleep, until } from '../support/wait.js';

const IDLE_TIMEOUT = 300;

let server: FakeKubeApiServer | undefined;
let recording: PipelineRecording | undefined;
afterEach(async () => {
  recording?.unsubscribe();
  await server?.stop();
  server = recording = undefined;
});

/** `key@resourceVersion` of every change the pipeline delivered (initial listing included). */
const deliveredChanges = (rec: PipelineRecording) =>
  rec.events.flatMap((e) =>
    e.type === 'ERROR' || e.type === 'BOOKMARK'
      ? []
      : [`${e.type} ${keyOfEvent(e)}@${resourceVersionOf(e)}`],
  );

/** The objects the delivered events leave, as `key@resourceVersion`, sorted. */
function storeOf(rec: PipelineRecording): string[] {
  const store = new Map<string, string>();
  for (const e of rec.events) {
    if (e.type === 'ERROR' || e.type === 'BOOKMARK') continue;
    if (e.type === 'DELETED') store.delete(keyOfEvent(e));
    else store.set(keyOfEvent(e), `${keyOfEvent(e)}@${resourceVersionOf(e)}`);
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

    const rec = (recording = new PipelineRecording());
    // What each reconnect asked for, beside the version of the last change delivered before it.
    const reconnects: Array<{ asked: string | undefined; cursor: string | undefined }> = [];
    const onLifecycle = (event: LifecycleEvent) => {
      rec.onLifecycle(event);
      if (event.type !== 'connecting') return;
      const last = rec.events.filter((e) => e.type !== 'ERROR').at(-1);
      reconnects.push({ asked: event.resourceVersion, cursor: last && resourceVersionOf(last) });
    };
    rec.subscribe(
      resumedWatch<KubernetesObject>(
        s.kubeConfig(),
        pods,
        {},
        {
          idleTimeout: IDLE_TIMEOUT,
          random: () => 0.01,
          onLifecycle,
        },
      ),
    );
    await until(() => rec.synced, 'the initial listing');

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
      () => storeOf(rec).join() === serverObjects(s).join(),
      () =>
        `the store ${JSON.stringify(storeOf(rec))} to equal the server ${JSON.stringify(serverObjects(s))}`,
    );
    await sleep(2 * IDLE_TIMEOUT); // one more quiet spell at the end

    expect(rec.errored).toBe(false);
    // Every change once, in order; nothing else.
    expect(deliveredChanges(rec)).toEqual(made);
    expect(storeOf(rec)).toEqual(serverObjects(s));
    // Several idle timeouts happened, each ended by the pipeline as an idle connection.
    const idle = rec.lifecycle.filter(
      ({ event }) => event.type === 'disconnected' && /idle/.test(event.error?.message ?? ''),
    );
    expect(idle.length).toBeGreaterThanOrEqual(4);
    // One list (the first); every reconnect asked for the version of the last change delivered.
    expect(rec.steps.filter((step) => step === 'relist-start')).toHaveLength(1);
    expect(s.requests.filter((r) => !r.watch)).toHaveLength(1);
    expect(reconnects.length).toBeGreaterThanOrEqual(idle.length);
    for (const { asked, cursor } of reconnects) expect(asked).toBe(cursor);
    const asked = s.requests.filter((r) => r.watch).map((r) => Number(r.query.resourceVersion));
    expect(asked.every((v) => v > 0)).toBe(true);
    expect(asked).toEqual([...asked].sort((x, y) => x - y));
  });
});
