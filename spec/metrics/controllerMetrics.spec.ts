import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { from, lastValueFrom } from 'rxjs';
import type { QueueState, ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { eventRecorder } from '../../src/controller/events/eventRecorder.js';
import { controllerMetrics } from '../../src/metrics/controllerMetrics.js';
import { WORKQUEUE_BUCKETS } from '../../src/metrics/metricSets.js';
import { pods } from '../../src/objects/resources.js';
import { scrape, series } from './scrape.js';

const queue = { name: 'web', controller: 'web' };

/**
 * What a queue of concurrency 1 tells its hooks for: a, b, c triggered; a done; b fails once
 * and is retried; c requeues itself once; then d gives up after its attempts.
 */
function scriptedRun(): { states: QueueState[]; reports: ReconcileReport[] } {
  const state = (depth: number, running: number, waiting: number, adds: number): QueueState => ({
    depth,
    running,
    waiting,
    adds,
  });
  const report = (
    key: string,
    outcome: ReconcileReport['outcome'],
    attempt: number,
    queuedMs: number,
    durationMs: number,
  ): ReconcileReport => ({ key, outcome, attempt, queuedMs, durationMs });
  return {
    states: [
      state(1, 0, 0, 1),
      state(2, 0, 0, 2),
      state(3, 0, 0, 3),
      state(2, 1, 0, 3), // a runs
      state(1, 1, 0, 3), // a done, b runs
      state(1, 0, 1, 3), // b failed: waits out its backoff
      state(0, 1, 1, 3), // c runs
      state(0, 0, 2, 3), // c requeued itself
      state(1, 0, 1, 3), // b ready again
      state(0, 1, 1, 3), // b runs
      state(1, 0, 0, 4), // b done, c ready (its requeue, counted as an add), d triggered too
      state(2, 0, 0, 5),
      state(0, 2, 0, 5),
      state(0, 0, 0, 5), // all done: depth back to 0
    ],
    reports: [
      report('default/a', 'done', 1, 2, 30),
      report('default/b', 'error', 1, 5, 400),
      report('default/c', 'requeue', 1, 9, 5),
      report('default/b', 'done', 2, 0.5, 20),
      report('default/c', 'done', 1, 1, 3),
      report('default/d', 'gave-up', 3, 1, 2_000),
    ],
  };
}

describe('controllerMetrics', () => {
  it('a scrape after a run shows adds, retries, depth back to 0, results, errors and durations', async () => {
    const registry = new Registry();
    const metrics = controllerMetrics(registry, { controller: 'web' });
    const { states, reports } = scriptedRun();
    for (const s of states.slice(0, 3)) metrics.onQueue(s);
    // Mid-run: the depth and the workers are what the queue said last.
    metrics.onQueue(states[3]);
    let samples = await scrape(registry);
    expect(samples.get(series('workqueue_depth', queue))).toBe(2);
    expect(samples.get(series('controller_runtime_active_workers', { controller: 'web' }))).toBe(1);
    for (const s of states.slice(4)) metrics.onQueue(s);
    await lastValueFrom(from(reports).pipe(metrics.observeReports()));

    samples = await scrape(registry);
    const at = (name: string, labels: Record<string, string>) => samples.get(series(name, labels));
    expect(at('workqueue_adds_total', queue)).toBe(states.at(-1)!.adds);
    expect(at('workqueue_depth', queue)).toBe(0);
    expect(at('controller_runtime_active_workers', { controller: 'web' })).toBe(0);
    const count = (outcomes: string[]) =>
      reports.filter((r) => outcomes.includes(r.outcome)).length;
    expect(at('workqueue_retries_total', queue)).toBe(count(['error']));
    const result = (r: string) =>
      at('controller_runtime_reconcile_total', { controller: 'web', result: r });
    expect(result('success')).toBe(count(['done']));
    expect(result('error')).toBe(count(['error', 'gave-up']));
    expect(result('requeue_after')).toBe(count(['requeue']));
    expect(at('controller_runtime_reconcile_errors_total', { controller: 'web' })).toBe(
      count(['error', 'gave-up']),
    );
    // Histograms: counts and sums in seconds, with controller-runtime's buckets.
    expect(at('workqueue_work_duration_seconds_count', queue)).toBe(reports.length);
    const workSum = reports.reduce((s, r) => s + r.durationMs, 0) / 1000;
    expect(at('workqueue_work_duration_seconds_sum', queue)).toBeCloseTo(workSum, 9);
    const queuedSum = reports.reduce((s, r) => s + r.queuedMs, 0) / 1000;
    expect(at('workqueue_queue_duration_seconds_sum', queue)).toBeCloseTo(queuedSum, 9);
    const under = (s: number) => reports.filter((r) => r.durationMs / 1000 <= s).length;
    for (const le of WORKQUEUE_BUCKETS) {
      expect(at('workqueue_work_duration_seconds_bucket', { le: String(le), ...queue })).toBe(
        under(le),
      );
    }
    expect(WORKQUEUE_BUCKETS).toEqual(Array.from({ length: 12 }, (_, i) => Number(`1e${i - 8}`)));
  });

  it('every series exists at 0 before the first run, as controller-runtime initialises them', async () => {
    const registry = new Registry();
    controllerMetrics(registry, { controller: 'web' });
    const samples = await scrape(registry);
    for (const result of ['success', 'error', 'requeue_after']) {
      expect(
        samples.get(series('controller_runtime_reconcile_total', { controller: 'web', result })),
      ).toBe(0);
    }
    expect(samples.get(series('workqueue_adds_total', queue))).toBe(0);
    expect(samples.get(series('workqueue_retries_total', queue))).toBe(0);
    expect(samples.get(series('workqueue_depth', queue))).toBe(0);
  });

  it('two controllers share one registry, told apart by their labels; a new queue restarts its adds', async () => {
    const registry = new Registry();
    const web = controllerMetrics(registry, { controller: 'web' });
    const jobs = controllerMetrics(registry, { controller: 'jobs' });
    web.onQueue({ depth: 0, running: 0, waiting: 0, adds: 4 });
    jobs.onQueue({ depth: 1, running: 0, waiting: 0, adds: 1 });
    // web's controller was resubscribed (leadership came back): its queue counts from 0 again.
    web.onQueue({ depth: 1, running: 0, waiting: 0, adds: 1 });
    web.onQueue({ depth: 2, running: 0, waiting: 0, adds: 2 });
    const samples = await scrape(registry);
    expect(samples.get(series('workqueue_adds_total', queue))).toBe(6);
    expect(samples.get(series('workqueue_adds_total', { name: 'jobs', controller: 'jobs' }))).toBe(
      1,
    );
    expect(() => controllerMetrics(registry, { controller: '' })).toThrow(/controller/);
  });

  it('the series of a sharded controller carry its member; those of an unsharded one have none', async () => {
    const registry = new Registry();
    const plain = controllerMetrics(registry, { controller: 'web' });
    const one = controllerMetrics(registry, { controller: 'cms', member: 'pod-1' });
    const two = controllerMetrics(registry, { controller: 'cms', member: 'pod-2' });
    const done = (key: string): ReconcileReport => ({
      key,
      outcome: 'done',
      attempt: 1,
      queuedMs: 1,
      durationMs: 2,
    });
    plain.observeReport(done('a/x'));
    one.observeReport(done('a/y'));
    two.observeReport(done('a/z'));
    two.observeReport(done('a/w'));
    one.onQueue({ depth: 3, running: 1, waiting: 0, adds: 4 });
    two.onLifecycle(pods, { type: 'connecting', resourceVersion: '1' });
    two.onLifecycle(pods, { type: 'connecting', resourceVersion: '1' });
    const samples = await scrape(registry);
    const reconciles = (labels: Record<string, string>) =>
      samples.get(series('controller_runtime_reconcile_total', { ...labels, result: 'success' }));
    // Unsharded: controller-runtime's labels, exactly.
    expect(reconciles({ controller: 'web' })).toBe(1);
    expect(samples.get(series('workqueue_depth', queue))).toBe(0);
    // Sharded: one series per member.
    expect(reconciles({ controller: 'cms', member: 'pod-1' })).toBe(1);
    expect(reconciles({ controller: 'cms', member: 'pod-2' })).toBe(2);
    expect(
      samples.get(series('workqueue_depth', { name: 'cms', controller: 'cms', member: 'pod-1' })),
    ).toBe(3);
    expect(
      samples.get(
        series('kube_rx_watch_reconnects_total', {
          controller: 'cms',
          member: 'pod-2',
          resource: 'v1/pods',
        }),
      ),
    ).toBe(1);
    // No series of the unsharded controller names a member.
    for (const name of samples.keys()) {
      if (name.includes('controller="web"')) expect(name).not.toContain('member=');
    }
    expect(() => controllerMetrics(registry, { controller: 'cms', member: '' })).toThrow(/member/);
  });

  it('counts the events its recorder dropped, by reason', async () => {
    const registry = new Registry();
    const metrics = controllerMetrics(registry, { controller: 'web' });
    const recorder = eventRecorder({} as never, {
      reportingController: 'example.com/web',
      reportingInstance: 'web-0',
      onDrop: metrics.onEventDropped,
    });
    // an invalid event is dropped before any request
    recorder.record(
      { metadata: { name: 'a' } },
      { type: 'Normal', reason: 'not camel', action: 'A' },
    );
    metrics.onEventDropped('rate-limited');
    metrics.onEventDropped('rate-limited');
    const samples = await scrape(registry);
    const dropped = (reason: string) =>
      samples.get(series('kube_rx_events_dropped_total', { controller: 'web', reason }));
    expect(dropped('invalid')).toBe(1);
    expect(dropped('rate-limited')).toBe(2);
    recorder.close();
  });

  it('100 000 distinct keys add no series and no label value', async () => {
    const registry = new Registry();
    const metrics = controllerMetrics(registry, { controller: 'web' });
    metrics.onLifecycle(pods, { type: 'relist-start' });
    metrics.observeReport({
      key: 'ns/first',
      outcome: 'done',
      attempt: 1,
      queuedMs: 1,
      durationMs: 1,
    });
    const before = await scrape(registry);
    const outcomes = ['done', 'error', 'requeue', 'gave-up'] as const;
    for (let i = 0; i < 100_000; i++) {
      const key = `ns-${i % 977}/object-${i}`;
      metrics.onQueue({ depth: i % 50, running: i % 2, waiting: i % 7, adds: i + 1 });
      metrics.observeReport({
        key,
        outcome: outcomes[i % 4],
        attempt: 1 + (i % 3),
        queuedMs: i % 100,
        durationMs: i % 1000,
      });
      metrics.onLifecycle(pods, { type: 'connecting', resourceVersion: String(i) });
    }
    const after = await scrape(registry);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    const text = await registry.metrics();
    expect(text).not.toMatch(/object-|ns-\d/);
    expect(
      after.get(
        series('controller_runtime_reconcile_total', { controller: 'web', result: 'success' }),
      ),
    ).toBe(25_001);
  });
});
