import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import { watchMetrics } from '../../src/metrics/watchMetrics.js';
import type { LifecycleEvent } from '../../src/operators/resume/LifecycleEvent.js';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';
import { sleep, until } from '../support/wait.js';
import { scrape, series } from './scrape.js';

let server: FakeKubeApiServer | undefined;
let subscription: Subscription | undefined;
afterEach(async () => {
  subscription?.unsubscribe();
  await server?.stop();
});

const labels = { resource: 'v1/pods' };

describe('watchMetrics', () => {
  it('a resilient watch through faults: events, reconnects, relists and the last event time', async () => {
    server = await FakeKubeApiServer.start({ http2: false });
    for (const name of ['a', 'b', 'c']) server.create(pods, pod(name, '1'));
    const registry = new Registry();
    const metrics = watchMetrics(registry, { resource: pods });
    const lifecycle: LifecycleEvent['type'][] = [];
    const events: WatchEvent<V1Pod>[] = [];
    const started = Date.now();
    subscription = resilientWatch(
      server.kubeConfig(),
      pods,
      {},
      {
        random: () => 0, // no backoff jitter: retries at once
        onLifecycle: (e) => {
          lifecycle.push(e.type);
          metrics.onLifecycle(e);
        },
      },
    )
      .pipe(metrics.countEvents())
      .subscribe((e) => events.push(e));
    await until(() => events.length >= 4, 'the list (3 ADDED and the end bookmark)');

    let samples = await scrape(registry);
    expect(samples.get(series('kube_rx_watch_reconnects_total', labels))).toBe(0);
    expect(samples.get(series('kube_rx_watch_relists_total', labels))).toBe(0);

    // Faults: every connection dropped (a reconnect), then the history expired (410: a relist).
    await until(() => server!.openWatches === 1, 'an open watch');
    server.disconnectAll();
    await until(() => lifecycle.filter((t) => t === 'connecting').length >= 2, 'a reconnect');
    server.create(pods, pod('d', '1'));
    await until(
      () => events.some((e) => e.type === 'ADDED' && e.object.metadata?.name === 'd'),
      'd',
    );
    server.expireHistory();
    server.create(pods, pod('e', '1'));
    await until(() => lifecycle.filter((t) => t === 'relist-end').length >= 2, 'a relist');
    await until(
      () => events.some((e) => e.type === 'ADDED' && e.object.metadata?.name === 'e'),
      'e',
    );
    await sleep(100);

    samples = await scrape(registry);
    const connections = lifecycle.filter((t) => t === 'connecting').length;
    const lists = lifecycle.filter((t) => t === 'relist-end').length;
    expect(connections).toBeGreaterThanOrEqual(3);
    expect(samples.get(series('kube_rx_watch_reconnects_total', labels))).toBe(connections - 1);
    expect(samples.get(series('kube_rx_watch_relists_total', labels))).toBe(lists - 1);
    expect(samples.get(series('kube_rx_watch_events_total', labels))).toBe(events.length);
    const last = samples.get(series('kube_rx_watch_last_event_seconds', labels))!;
    expect(last * 1000).toBeGreaterThanOrEqual(started);
    expect(last * 1000).toBeLessThanOrEqual(Date.now());

    // A scrape adds what came since the last one, no more.
    const before = events.length;
    server.create(pods, pod('f', '1'));
    await until(() => events.length > before, 'f');
    samples = await scrape(registry);
    expect(samples.get(series('kube_rx_watch_events_total', labels))).toBe(events.length);
  });

  it('100 000 distinct objects add no series; a controller label tells watches apart', async () => {
    const registry = new Registry();
    const plain = watchMetrics(registry, { resource: pods });
    const owned = watchMetrics(registry, { resource: 'v1/pods', controller: 'web' });
    const { Subject } = await import('rxjs');
    const input = new Subject<WatchEvent<V1Pod>>();
    input.pipe(plain.countEvents(), owned.countEvents()).subscribe();
    input.next({ type: 'ADDED', object: pod('first', '1') });
    const before = await scrape(registry);
    for (let i = 0; i < 100_000; i++) {
      input.next({ type: 'MODIFIED', object: pod(`pod-${i}`, String(i + 2)) });
      plain.onLifecycle({ type: 'connecting', resourceVersion: String(i) });
    }
    const after = await scrape(registry);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    expect(await registry.metrics()).not.toMatch(/pod-\d/);
    expect(after.get(series('kube_rx_watch_events_total', labels))).toBe(100_001);
    expect(after.get(series('kube_rx_watch_events_total', { controller: 'web', ...labels }))).toBe(
      100_001,
    );
    expect(after.get(series('kube_rx_watch_reconnects_total', labels))).toBe(99_999);
  });
});
