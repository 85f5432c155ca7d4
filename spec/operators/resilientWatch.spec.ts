// resilientWatch is fromWatch + withBookmarks(config.bookmarks) + resumeFromResourceVersion(config)
// over real HTTP: these specs check that each part is there and gets its part of the config.
// The behaviour of the parts is specified by their own specs (the resumed integration specs run
// through resilientWatch too).
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Subscription } from 'rxjs';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import type { LifecycleEvent } from '../../src/operators/resume/LifecycleEvent.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';
import { WatchError } from '../../src/WatchError.js';
import { until } from '../support/wait.js';

let server: FakeKubeApiServer | undefined;
let subscription: Subscription | undefined;

afterEach(async () => {
  subscription?.unsubscribe();
  subscription = undefined;
  await server?.stop();
  server = undefined;
});

describe('resilientWatch', () => {
  it('lists, then watches from the list version asking for bookmarks, with the watch options', async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    const s = server;
    s.create(pods, pod('a', ''));
    const events: WatchEvent<KubernetesObject>[] = [];
    subscription = resilientWatch(s.kubeConfig(), pods, { namespace: 'default' }).subscribe((e) =>
      events.push(e),
    );
    await until(() => s.openWatches === 1, 'the watch');
    s.create(pods, pod('b', ''));
    await until(() => events.length === 3, 'ADDED a, the end bookmark, ADDED b');
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK', 'ADDED']);
    const [list, watch] = s.requests;
    expect(list).toMatchObject({ watch: false, path: '/api/v1/namespaces/default/pods' });
    expect(watch?.query).toMatchObject({ resourceVersion: '1', allowWatchBookmarks: 'true' });
  });

  it('opens its watch through config.source when given (lists and watches go through it)', async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    const s = server;
    s.create(pods, pod('a', ''));
    const opened: unknown[] = [];
    subscription = resilientWatch(
      s.kubeConfig(),
      pods,
      { namespace: 'default' },
      {
        source: (cluster, resource, options) => {
          opened.push(options);
          return fromWatch(cluster, resource, { ...options, labelSelector: 'app=through-source' });
        },
      },
    ).subscribe();
    await until(() => s.openWatches === 1, 'the watch');
    expect(opened).toEqual([{ namespace: 'default' }]);
    expect(s.requests.map((r) => r.query.labelSelector)).toEqual([
      'app=through-source',
      'app=through-source',
    ]);
  });

  it('gives up on a silent watch after config.bookmarks.idleTimeout and resumes, telling onLifecycle', async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    const s = server;
    s.create(pods, pod('a', ''));
    s.faults.stall(3000);
    const lifecycle: LifecycleEvent[] = [];
    subscription = resilientWatch(
      s.kubeConfig(),
      pods,
      {},
      { bookmarks: { idleTimeout: 300 }, onLifecycle: (e) => lifecycle.push(e) },
    ).subscribe();
    await until(() => s.requests.filter((r) => r.watch).length === 2, 'a second watch');
    const idle = lifecycle.find((e) => e.type === 'disconnected');
    expect(idle?.type === 'disconnected' && idle.error).toBeInstanceOf(WatchError);
    expect(idle?.type === 'disconnected' && idle.error?.message).toMatch(/idle/);
  });

  it('errors with the WatchError on what retrying cannot fix (403)', async () => {
    server = await FakeKubeApiServer.start();
    const s = server;
    s.faults.fail(403);
    let error: unknown;
    subscription = resilientWatch(s.kubeConfig(), pods).subscribe({
      error: (e: unknown) => (error = e),
    });
    await until(() => error !== undefined, 'the error');
    expect(error).toMatchObject({ errorType: 'FORBIDDEN', statusCode: 403 });
    expect(s.requests).toHaveLength(1);
  });
});
