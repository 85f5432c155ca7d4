// The resumed pipeline, `fromWatch(kc, pods).pipe(withBookmarks(), resumeFromResourceVersion())`,
// over real HTTP against FakeKubeApiServer with real faults, on real timers. What each reconnect
// asked for is read from the server's own request log, so these specs check the wire, not the
// operator's account of itself.
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { share } from 'rxjs';
import type { ResumeConfig } from '../../src/operators/resumeFromResourceVersion.js';
import { toStore } from '../../src/operators/toStore.js';
import type { Store } from '../../src/operators/store/Store.js';
import { configmaps, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { FakeKubeApiServerOptions } from '../../src/testing/fakeKubeApiServer/types.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { WatchError } from '../../src/WatchError.js';
import type { Cluster, KubernetesObject, WatchEvent, WatchOptions } from '../../src/types.js';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { PipelineRecording } from '../support/pipelineRecording.js';
import { sleep, until } from '../support/wait.js';

/** Backoffs of a few ms, for the specs that are not about backoff. */
const quick = (): number => 0.01;
/**
 * Request times are whole `Date.now()` ms, and Node timers count from the event loop's cached
 * clock: a delay of d ms can measure as d - 1. Gaps are asserted to within this slack.
 */
const CLOCK_SLACK = 3;

let server: FakeKubeApiServer | undefined;
let recording: PipelineRecording | undefined;

afterEach(async () => {
  recording?.unsubscribe();
  recording = undefined;
  await server?.stop();
  server = undefined;
});

async function startServer(options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
  server = await FakeKubeApiServer.start(options);
  return server;
}

/** Subscribes to the recommended pipeline and records it. */
function resumed(
  cluster: Cluster,
  {
    source = {},
    idleTimeout = 5000,
    resume = {},
  }: { source?: WatchOptions; idleTimeout?: number; resume?: ResumeConfig } = {},
): PipelineRecording {
  const rec = new PipelineRecording();
  recording = rec;
  return rec.subscribe(
    resilientWatch<KubernetesObject>(cluster, pods, source, {
      bookmarks: { idleTimeout },
      random: quick,
      ...resume,
      onLifecycle: rec.onLifecycle,
    }),
  );
}

const watchRequests = (s: FakeKubeApiServer) => s.requests.filter((r) => r.watch);
const listRequests = (s: FakeKubeApiServer) => s.requests.filter((r) => !r.watch);

/** Waits until `line` (a `describeEvent` line) was delivered. */
const delivered = (rec: PipelineRecording, line: string) =>
  until(
    () => rec.story.includes(line),
    () => `"${line}" among ${JSON.stringify(rec.story)}`,
  );

const objectOf = (event: WatchEvent<KubernetesObject> | undefined) =>
  event === undefined || event.type === 'ERROR' ? undefined : event.object;

/** Asserts that no (key, resourceVersion) of ADDED/MODIFIED was delivered twice. */
function expectNoRepeats(rec: PipelineRecording): void {
  const changes = rec.story.filter((l) => l.startsWith('ADDED') || l.startsWith('MODIFIED'));
  const pairs = changes.map((l) => l.split(' ')[1]);
  expect(pairs).toEqual([...new Set(pairs)]);
}

describe('resumeFromResourceVersion over HTTP: the server closes the watch', () => {
  it('resumes at once from the version of the last event delivered', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    s.create(pods, pod('b', ''));
    const rec = resumed(s.kubeConfig(), { source: { timeoutSeconds: 1 } });
    await delivered(rec, 'BOOKMARK @2 end');
    await until(() => s.openWatches === 1, 'the first watch');
    s.create(pods, pod('c', ''));
    s.update(pods, pod('a', '', { status: { phase: 'Succeeded' } }));
    await delivered(rec, 'MODIFIED default/a@4');
    const lastBeforeClose = rec.events.at(-1)!;

    await until(
      () => watchRequests(s).length === 2,
      'the server to end the watch, and a reconnect',
    );
    const [first, second] = watchRequests(s);
    expect(first.query).toMatchObject({ resourceVersion: '2', timeoutSeconds: '1' });
    expect(second.query.resourceVersion).toBe('4');
    expect(second.query.resourceVersion).toBe(
      lastBeforeClose.type === 'ERROR' ? undefined : lastBeforeClose.resourceVersion,
    );
    // "At once": the server ends the first watch 1 s after it came; no backoff in between.
    expect(second.at - first.at).toBeLessThan(2500); // roomy for a loaded CI machine
    expect(rec.steps).not.toContainEqual(expect.stringMatching(/^backoff/));
    expect(rec.steps).toEqual([
      'relist-start',
      'relist-end 2',
      'connecting 2',
      'connected',
      'disconnected closed',
      'connecting 4',
    ]);

    s.create(pods, pod('d', ''));
    await delivered(rec, 'ADDED default/d@5');
    expect(rec.story).toEqual([
      'ADDED default/a@1',
      'ADDED default/b@2',
      'BOOKMARK @2 end',
      'ADDED default/c@3',
      'MODIFIED default/a@4',
      'ADDED default/d@5',
    ]);
    expect(listRequests(s)).toHaveLength(1);
    expectNoRepeats(rec);
    expect(rec.errored).toBe(false);
  });

  it('follows bookmarks too: the next watch resumes from the last bookmark', async () => {
    const s = await startServer({ bookmarkIntervalMs: 100 });
    s.create(pods, pod('a', ''));
    const rec = resumed(s.kubeConfig(), { source: { timeoutSeconds: 1 } });
    await delivered(rec, 'BOOKMARK @1 end');
    await until(() => s.openWatches === 1, 'the first watch');
    // Other resources move the global resourceVersion; the pods watch only sees it in bookmarks.
    s.create(configmaps, { metadata: { name: 'c1', namespace: 'default' } });
    s.create(configmaps, { metadata: { name: 'c2', namespace: 'default' } });
    await delivered(rec, 'BOOKMARK @3');
    await until(() => watchRequests(s).length === 2, 'a reconnect');
    expect(watchRequests(s).map((r) => r.query.resourceVersion)).toEqual(['1', '3']);
    expect(watchRequests(s).every((r) => r.query.allowWatchBookmarks === 'true')).toBe(true);
  });
});

describe('resumeFromResourceVersion over HTTP: history expired while disconnected', () => {
  it('relists and delivers exactly the difference, then the initial-events-end bookmark', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    s.create(pods, pod('b', ''));
    s.create(pods, pod('c', ''));
    const rec = resumed(s.kubeConfig(), { source: { timeoutSeconds: 1 } });
    await delivered(rec, 'BOOKMARK @3 end');
    await until(() => s.openWatches === 1, 'the first watch');
    const deliveredB = rec.events.find((e) => e.type === 'ADDED' && e.resourceVersion === '2');

    // When the watch times out, the reconnect meets a 503 and waits 1 s: changes and a
    // compaction happen meanwhile, so the cursor (3) is gone when it comes back.
    s.faults.fail(503, { match: 'watch', retryAfterSeconds: 1 });
    await until(() => s.requests.some((r) => r.status === 503), 'the 503');
    s.update(pods, pod('a', '', { status: { phase: 'Failed' } })); // 4
    s.delete(pods, 'default', 'b'); // 5
    s.create(pods, pod('d', '')); // 6
    s.expireHistory(); // 7

    await delivered(rec, 'BOOKMARK @7 end');
    expect(rec.story).toEqual([
      'ADDED default/a@1',
      'ADDED default/b@2',
      'ADDED default/c@3',
      'BOOKMARK @3 end',
      // Deletions first; c is unchanged: nothing for it.
      'DELETED default/b@2',
      'MODIFIED default/a@4',
      'ADDED default/d@6',
      'BOOKMARK @7 end',
    ]);
    const deleted = objectOf(rec.events.find((e) => e.type === 'DELETED'));
    // The last known object, as it was delivered.
    expect(deleted).toEqual(objectOf(deliveredB));
    expect(deleted?.metadata?.name).toBe('b');
    const modified = objectOf(rec.events.find((e) => e.type === 'MODIFIED'));
    expect(modified).toEqual(s.get(pods, 'default', 'a'));

    s.create(pods, pod('e', ''));
    await delivered(rec, 'ADDED default/e@8');
    expectNoRepeats(rec);

    expect(
      s.requests.map(
        (r) => `${r.watch ? 'watch' : 'list'} ${r.query.resourceVersion ?? '-'} ${r.status}`,
      ),
    ).toEqual([
      'list - 200',
      'watch 3 200', // ended by timeoutSeconds
      'watch 3 503',
      'watch 3 200', // answered with an in-stream 410 ERROR
      'list - 200',
      'watch 7 200',
    ]);
    expect(rec.steps).toEqual(
      expect.arrayContaining(['expired', 'relist-start', 'relist-end 3', 'connecting 7']),
    );
    expect(rec.errored).toBe(false);
  });
});

describe('resumeFromResourceVersion over HTTP: a pod re-created under the same name during a 410 gap', () => {
  it('reaches a uid-keyed store as DELETED (old uid) then ADDED (new uid)', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    const byUid = (o: KubernetesObject) => o.metadata!.uid!;
    s.create(pods, pod('a', '', { metadata: { uid: 'uid-1' } })); // 1
    const rec = new PipelineRecording();
    recording = rec;
    const shared = resilientWatch<KubernetesObject>(
      s.kubeConfig(),
      pods,
      { timeoutSeconds: 1 },
      {
        bookmarks: { idleTimeout: 5000 },
        random: quick,
        onLifecycle: rec.onLifecycle,
        key: byUid,
      },
    ).pipe(share());
    let store: Store<KubernetesObject> | undefined;
    const storeSubscription = shared.pipe(toStore({ key: byUid })).subscribe((x) => (store = x));
    rec.subscribe(shared);
    try {
      await delivered(rec, 'BOOKMARK @1 end');
      await until(() => s.openWatches === 1, 'the first watch');

      // The reconnect after the watch times out meets a 503 and waits 1 s; meanwhile the pod is
      // deleted and re-created under the same name (a new uid), and history is compacted.
      s.faults.fail(503, { match: 'watch', retryAfterSeconds: 1 });
      await until(() => s.requests.some((r) => r.status === 503), 'the 503');
      s.delete(pods, 'default', 'a'); // 2
      s.create(pods, pod('a', '', { metadata: { uid: 'uid-2' } })); // 3
      s.expireHistory(); // 4

      await delivered(rec, 'BOOKMARK @4 end');
      expect(rec.story).toEqual([
        'ADDED default/a@1',
        'BOOKMARK @1 end',
        'DELETED default/a@1',
        'ADDED default/a@3',
        'BOOKMARK @4 end',
      ]);
      expect(objectOf(rec.events[2])?.metadata?.uid).toBe('uid-1');
      expect(objectOf(rec.events[3])?.metadata?.uid).toBe('uid-2');
      expect(store?.values()).toEqual([s.get(pods, 'default', 'a')]);
      expect(store?.get('uid-1')).toBeUndefined();
    } finally {
      storeSubscription.unsubscribe();
    }
  });
});

describe('resumeFromResourceVersion over HTTP: Retry-After', () => {
  it('does not reconnect before the 2 s a 503 asks for', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    s.faults.fail(503, { match: 'watch', retryAfterSeconds: 2 });
    const rec = resumed(s.kubeConfig());
    await until(() => watchRequests(s).length === 2, 'the reconnect after the 503');
    const [refused, retried] = watchRequests(s);
    expect(refused.status).toBe(503);
    expect(retried.at - refused.at).toBeGreaterThanOrEqual(2000 - CLOCK_SLACK);
    expect(retried.query.resourceVersion).toBe('1');
    const backoff = rec.lifecycle.find((l) => l.event.type === 'backoff')!.event;
    expect(backoff).toMatchObject({ delay: 2000, attempt: 1 });
    expect(backoff.type === 'backoff' && backoff.error).toMatchObject({
      errorType: 'SYSTEM_ERROR',
      statusCode: 503,
      retryAfterSeconds: 2,
    });

    s.create(pods, pod('b', ''));
    await delivered(rec, 'ADDED default/b@2');
    expect(rec.errored).toBe(false);
  });

  it('does not relist before the 1 s a 429 on the list asks for', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    s.faults.fail(429, { match: 'list', retryAfterSeconds: 1 });
    const rec = resumed(s.kubeConfig());
    await delivered(rec, 'BOOKMARK @1 end');
    const [refused, retried] = listRequests(s);
    expect(refused.status).toBe(429);
    expect(retried.status).toBe(200);
    expect(retried.at - refused.at).toBeGreaterThanOrEqual(1000 - CLOCK_SLACK);
    expect(rec.steps.slice(0, 3)).toEqual(['relist-start', 'backoff 1000 #1 429', 'relist-start']);
  });
});

describe('resumeFromResourceVersion over HTTP: a server that closes every watch at once', () => {
  it('makes at most a handful of requests in 3 s', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    s.faults.closeImmediately({ times: 1000 });
    // This spec is about the backoff, so it gets a real one: the median draw of full jitter.
    // (Full jitter may draw 0, so with Math.random the bound would only be very likely.)
    const rec = resumed(s.kubeConfig(), { resume: { random: () => 0.5 } });
    await sleep(3000);
    rec.unsubscribe();
    // A request sent just before the unsubscribe may reach the server's log a little later.
    await sleep(200);
    const count = s.requests.length;
    expect(count).toBeLessThanOrEqual(5);
    const watches = watchRequests(s);
    expect(watches.length).toBeGreaterThanOrEqual(3);
    // Every one of them is a "very short watch", a failure with a growing backoff. The last one
    // may be cut by the unsubscribe before its close reaches the client.
    const disconnects = rec.steps.filter((l) => l.startsWith('disconnected'));
    expect(disconnects.length).toBeGreaterThanOrEqual(watches.length - 1);
    expect(new Set(disconnects)).toEqual(new Set(['disconnected too-short 0']));
    const delays = rec.lifecycle.flatMap(({ event }) =>
      event.type === 'backoff' ? [event.delay] : [],
    );
    expect(delays.slice(0, 3)).toEqual([400, 800, 1600]);
    for (let i = 1; i < watches.length; i++) {
      expect(watches[i].at - watches[i - 1].at).toBeGreaterThanOrEqual(delays[i - 1] - CLOCK_SLACK);
    }
    // Every request resumes from the list's version, never from scratch.
    expect(new Set(watches.map((r) => r.query.resourceVersion))).toEqual(new Set(['1']));
    // Nothing more once unsubscribed.
    await sleep(500);
    expect(s.requests.length).toBe(count);
  });
});

describe('resumeFromResourceVersion over HTTP: idle connections', () => {
  it('reconnects when a watch stalls longer than idleTimeout, and events go on', async () => {
    const s = await startServer({ bookmarkIntervalMs: 100 });
    s.create(pods, pod('a', ''));
    s.faults.stall(3000); // the first watch sends its headers, then nothing for 3 s
    const rec = resumed(s.kubeConfig(), { idleTimeout: 500 });
    await until(() => watchRequests(s).length === 1, 'the first watch');
    s.create(pods, pod('b', '')); // held by the stalled connection
    await delivered(rec, 'ADDED default/b@2');
    const [stalled, fresh] = watchRequests(s);
    // The idle timer runs from the moment the connection is opened, a few ms before the server
    // sees the request: measure it on the client.
    const opened = rec.lifecycle.find((l) => l.event.type === 'connecting')!.at;
    const gaveUp = rec.lifecycle.find((l) => l.event.type === 'disconnected')!.at;
    expect(gaveUp - opened).toBeGreaterThanOrEqual(500 - CLOCK_SLACK);
    expect(fresh.at - stalled.at).toBeLessThan(2500); // before the 3 s stall ends; roomy for CI
    // Nothing was delivered on the stalled connection: the reconnect asks for the same version.
    expect([stalled.query.resourceVersion, fresh.query.resourceVersion]).toEqual(['1', '1']);
    const idle = rec.lifecycle.find((l) => l.event.type === 'disconnected')!.event;
    expect(idle.type === 'disconnected' && idle.error).toBeInstanceOf(WatchError);
    expect(idle.type === 'disconnected' && idle.error?.message).toMatch(/idle/);
    // The stalled connection was given up, not left open beside the new one.
    await until(() => s.openWatches === 1, 'the stalled watch to be closed');

    s.create(pods, pod('c', ''));
    await delivered(rec, 'ADDED default/c@3');
    expect(rec.story.filter((l) => !l.startsWith('BOOKMARK'))).toEqual([
      'ADDED default/a@1',
      'ADDED default/b@2',
      'ADDED default/c@3',
    ]);
    expectNoRepeats(rec);
    expect(rec.errored).toBe(false);
  });

  it('keeps a watch that stalls for less than idleTimeout', async () => {
    const s = await startServer({ bookmarkIntervalMs: 100 });
    s.create(pods, pod('a', ''));
    s.faults.stall(250);
    const rec = resumed(s.kubeConfig(), { idleTimeout: 500 });
    await until(() => watchRequests(s).length === 1, 'the first watch');
    s.create(pods, pod('b', ''));
    await delivered(rec, 'ADDED default/b@2');
    await sleep(600);
    expect(watchRequests(s)).toHaveLength(1);
    expect(rec.steps).not.toContainEqual(expect.stringMatching(/^disconnected/));
  });
});

describe('resumeFromResourceVersion over HTTP: credentials', () => {
  /**
   * The rotation race every client meets: the server starts accepting a new token, the
   * credential source learns it while a request carrying the old one is in flight. That request
   * gets a 401; the retry resolves credentials afresh and carries the new token.
   */
  async function rotateWhileInFlight(
    s: FakeKubeApiServer,
    rec: PipelineRecording,
    learnNewToken: () => void,
  ): Promise<void> {
    await delivered(rec, 'BOOKMARK @1 end');
    await until(() => s.openWatches === 1, 'the first watch');
    const before = s.requests.length;
    s.rotateToken('token-2');
    // The watch ends at its timeoutSeconds and reconnects with the token it has.
    await s.waitForRequests(before + 1);
    // Still synchronous with the server seeing that request: its 401 is not even written yet.
    learnNewToken();
    await until(
      () => s.requests.length >= before + 2 && s.requests[before + 1].status !== 0,
      'the retry',
    );
    expect(
      s.requests.slice(before).map((r) => `${r.query.resourceVersion} ${r.status} ${r.tokenValid}`),
    ).toEqual(['1 401 false', '1 200 true']);
    expect(rec.steps).toContain('backoff 0 #1 401');
    s.create(pods, pod('b', ''));
    await delivered(rec, 'ADDED default/b@2');
    await sleep(1200); // another timeout and reconnect: still the new token, no more 401
    expect(s.requests.filter((r) => r.status === 401)).toHaveLength(1);
    expect(rec.errored).toBe(false);
  }

  it('retries a 401 once with the KubeConfig token read afresh', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    const kc = s.kubeConfig(); // carries 'test-token'
    const rec = resumed(kc, { source: { timeoutSeconds: 1 } });
    await rotateWhileInFlight(s, rec, () => {
      // What a program that reloads its kubeconfig, or refreshes the user's token, does.
      (kc.getCurrentUser() as { token?: string }).token = 'token-2';
    });
  });

  it('retries a 401 once with a token from an exec credential plugin', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    const dir = mkdtempSync(join(tmpdir(), 'kube-rx-exec-'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, 'test-token');
      // A plugin like a cloud provider's: prints an ExecCredential with whatever token it has
      // now. Without an expirationTimestamp client-node runs it for every request.
      const plugin = `
        const token = require('fs').readFileSync(process.env.TOKEN_FILE, 'utf8');
        process.stdout.write(JSON.stringify({
          apiVersion: 'client.authentication.k8s.io/v1',
          kind: 'ExecCredential',
          status: { token },
        }));`;
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: s.kubeConfig().getClusters(),
        users: [
          {
            name: 'exec',
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: ['-e', plugin],
              env: [{ name: 'TOKEN_FILE', value: tokenFile }],
            },
          },
        ],
        contexts: [{ name: 'fake', cluster: 'fake', user: 'exec' }],
        currentContext: 'fake',
      });
      const rec = resumed(kc, { source: { timeoutSeconds: 1 } });
      await rotateWhileInFlight(s, rec, () => writeFileSync(tokenFile, 'token-2'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('errors with UNAUTHORIZED_ERROR when the retry is refused too', async () => {
    const s = await startServer();
    const rec = resumed(s.kubeConfig({ token: 'stale' }));
    await until(() => rec.errored, 'the stream to error');
    expect(rec.error).toBeInstanceOf(WatchError);
    expect(rec.error).toMatchObject({ errorType: 'UNAUTHORIZED_ERROR', statusCode: 401 });
    expect(s.requests.map((r) => r.status)).toEqual([401, 401]);
    await sleep(300);
    expect(s.requests).toHaveLength(2);
  });
});

describe('resumeFromResourceVersion over HTTP: requests that cannot succeed', () => {
  it.each([
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [400, 'BAD_REQUEST'],
  ])(
    'a %i on the watch errors the stream with %s after exactly one request',
    async (status, errorType) => {
      const s = await startServer();
      s.faults.fail(status, { match: 'watch', times: 100 });
      // Resuming from a known version: no list, the watch is the first request.
      const rec = resumed(s.kubeConfig(), { source: { resourceVersion: '1' } });
      await until(() => rec.errored, 'the stream to error');
      expect(rec.error).toBeInstanceOf(WatchError);
      expect(rec.error).toMatchObject({
        errorType,
        statusCode: status,
        resourcePath: '/api/v1/pods',
      });
      await sleep(300);
      expect(s.requests.map((r) => r.status)).toEqual([status]);
      expect(rec.events).toEqual([]);
      expect(rec.steps).toEqual(['connecting 1', `disconnected error ${status}`]);
    },
  );

  it('a 403 on the initial list errors the stream after exactly one request', async () => {
    const s = await startServer();
    s.faults.fail(403, { times: 100 });
    const rec = resumed(s.kubeConfig());
    await until(() => rec.errored, 'the stream to error');
    expect(rec.error).toMatchObject({ errorType: 'FORBIDDEN', statusCode: 403 });
    await sleep(300);
    expect(s.requests.map((r) => `${r.watch ? 'watch' : 'list'} ${r.status}`)).toEqual([
      'list 403',
    ]);
  });
});

describe('resumeFromResourceVersion over HTTP: a list that never answers', () => {
  // A list whose answer never comes (a dead TCP connection, a wedged proxy) must not stall the
  // pipeline, at start or on a 410 relist: withBookmarks bounds lists by idleTimeout too.
  it('gives up on a list that does not answer within idleTimeout, and lists again', async () => {
    const s = await startServer();
    s.create(pods, pod('a', ''));
    s.faults.delayHeaders(5000); // the list's answer is held for 5 s
    const rec = resumed(s.kubeConfig(), { idleTimeout: 300 });
    await sleep(1500);
    expect(rec.steps).toContainEqual(expect.stringMatching(/^backoff/));
    expect(listRequests(s).length).toBeGreaterThanOrEqual(2);
    await delivered(rec, 'BOOKMARK @1 end');
  });
});

describe('resumeFromResourceVersion over HTTP: maxRetries', () => {
  // maxRetries bounds *consecutive* failures: a healthy stream behind a proxy that cuts
  // connections every minute must not die after maxRetries cuts (the backoff delay, unlike the
  // count, starts over only after 2 minutes up, as client-go's does).
  it('counts consecutive failures only: a connection that delivered events starts the count over', async () => {
    const s = await startServer({ bookmarkIntervalMs: 0 });
    s.create(pods, pod('a', ''));
    s.faults.dropAfter(1, { times: 3 }); // each of the next three watches dies after one event
    const rec = resumed(s.kubeConfig(), { resume: { maxRetries: 2 } });
    for (const name of ['b', 'c', 'd']) {
      await until(() => s.openWatches === 1, 'a watch');
      const version = s.create(pods, pod(name, '')).metadata!.resourceVersion;
      await delivered(rec, `ADDED default/${name}@${version}`);
      await until(() => rec.steps.at(-1) !== 'connected' || rec.errored, 'the drop');
    }
    await sleep(100);
    // Three failures, each after a connection that delivered an event: none consecutive.
    expect({ errored: rec.errored, error: String(rec.error) }).toEqual({
      errored: false,
      error: 'undefined',
    });
  });
});
