import { describe, expect, it } from '@jest/globals';
import { marbles } from 'rxjs-marbles/jest';
import { Action } from '../../src/controller/Action.js';
import { reconcileQueue } from '../../src/controller/reconcileQueue.js';
import type { ReconcileQueueConfig } from '../../src/controller/ReconcileQueueConfig.js';
import type { ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { report, scriptedReconcile, type Step } from './support/queueHarness.js';
import { from, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';

const fail: Step = { fail: true };
const backoff = { initialMs: 10, factor: 2, maxMs: 40, jitter: 0.1 };

/** Runs keys through a queue in virtual time; what each run reported, and when. */
function play(
  scheduler: TestScheduler,
  keys: Observable<string>,
  scripts: Record<string, Step[]>,
  config: ReconcileQueueConfig = {},
) {
  const { reconcile, calls } = scriptedReconcile(scheduler, scripts);
  const reports: Array<ReconcileReport & { at: number }> = [];
  keys
    .pipe(reconcileQueue(reconcile, { rateLimit: false, scheduler, random: () => 0.5, ...config }))
    .subscribe((r) => reports.push({ ...r, at: scheduler.now() }));
  scheduler.flush();
  return { calls, reports, runs: calls.map((call) => `${call.key}@${call.at}#${call.attempt}`) };
}

describe('reconcileQueue: Action.requeueAfter, an earlier trigger, the earliest time', () => {
  it(
    'runs a key again after the delay its run asked for',
    marbles((m) => {
      const { reconcile } = scriptedReconcile(m.scheduler, {
        a: [{ action: Action.requeueAfter(5) }],
      });
      const queue = reconcileQueue(reconcile, { rateLimit: false, scheduler: m.scheduler });
      m.expect(m.cold('a-------|').pipe(queue)).toBeObservable('-a-----b|', {
        a: report('a', 'requeue', { nextRunInMs: 5 }),
        b: report('a'),
      });
    }),
  );

  it(
    'runs it at once on an earlier trigger, and not again at the requeue time',
    marbles((m) => {
      const { runs } = play(m.scheduler, m.cold('a---a------------|'), {
        a: [{ action: { requeueAfterMs: 10 } }],
      });
      expect(runs).toEqual(['a@0#1', 'a@4#1']);
    }),
  );

  it(
    'keeps a requeue time earlier than the end of a debounce',
    marbles((m) => {
      // a is ready at 10 (debounce), runs 10-11 and asks for 14; a trigger at 12 would make it
      // ready at 22, the requeue at 14 wins and takes the trigger along.
      const { runs } = play(
        m.scheduler,
        m.cold('a-----------a----------|'),
        { a: [{ action: Action.requeueAfter(3) }] },
        { debounceMs: 10 },
      );
      expect(runs).toEqual(['a@10#1', 'a@14#1']);
    }),
  );
});

describe('reconcileQueue: per-key exponential backoff with jitter, reset by a success', () => {
  it(
    'doubles the delay after each failure up to maxMs, and starts over after a success',
    marbles((m) => {
      // b keeps a slot busy (requeued far ahead), so the queue keeps a's slot between runs.
      const { runs, reports } = play(
        m.scheduler,
        m.cold('ab 149ms a 100ms |'),
        { a: [fail, fail, fail, fail, {}, fail, {}], b: [{ action: Action.requeueAfter(1000) }] },
        { backoff, concurrency: 2 },
      );
      expect(runs.filter((run) => run.startsWith('a'))).toEqual([
        'a@0#1',
        'a@11#2',
        'a@32#3',
        'a@73#4',
        'a@114#5',
        'a@151#1',
        'a@162#2',
      ]);
      expect(reports.filter((r) => r.key === 'a').map((r) => [r.outcome, r.nextRunInMs])).toEqual([
        ['error', 10],
        ['error', 20],
        ['error', 40],
        ['error', 40],
        ['done', undefined],
        ['error', 10],
        ['done', undefined],
      ]);
    }),
  );

  it(
    'spreads each delay by up to +-jitter, never past maxMs',
    marbles((m) => {
      const draws = [0, 0.999, 0.999];
      const { reports } = play(
        m.scheduler,
        m.cold('a'),
        { a: [fail, fail, fail, {}] },
        { backoff, random: () => draws.shift() ?? 0.5 },
      );
      // 10 * 0.9, 20 * 1.0998, 40 * 1.0998 capped at 40
      expect(reports.map((r) => r.nextRunInMs)).toEqual([9, 22, 40, undefined]);
    }),
  );

  it(
    'keys back off on their own',
    marbles((m) => {
      const { runs } = play(m.scheduler, m.cold('ab'), { a: [fail, fail], b: [fail] }, { backoff });
      expect(runs).toEqual(['a@0#1', 'b@1#1', 'a@11#2', 'b@12#2', 'a@32#3']);
    }),
  );
});

describe('reconcileQueue: a trigger during a backoff runs at once without growing it', () => {
  it(
    'counts only a run at or after its scheduled retry as a further attempt',
    marbles((m) => {
      // a fails at 1 and is due at 11; a trigger at 5 runs it at once, that run fails too, and
      // the retry stays at 11 as attempt 2, whose failure backs off 20 (not 40).
      const { runs, reports } = play(
        m.scheduler,
        m.cold('a----a'),
        { a: [fail, fail, fail] },
        {
          backoff,
        },
      );
      expect(runs).toEqual(['a@0#1', 'a@5#2', 'a@11#2', 'a@32#3']);
      expect(reports.map((r) => r.nextRunInMs)).toEqual([10, 5, 20, undefined]);
    }),
  );

  it(
    'resets the backoff when that early run succeeds',
    marbles((m) => {
      const { runs } = play(m.scheduler, m.cold('a----a'), { a: [fail, {}] }, { backoff });
      expect(runs).toEqual(['a@0#1', 'a@5#2']);
    }),
  );
});

describe('reconcileQueue: maxAttempts, then gave-up until the next trigger', () => {
  it(
    'gives up after maxAttempts counted failures and starts at attempt 1 when triggered again',
    marbles((m) => {
      const { runs, reports } = play(
        m.scheduler,
        m.cold('ab 98ms a'),
        { a: [fail, fail, fail, fail], b: [{ action: Action.requeueAfter(1000) }] },
        { backoff, maxAttempts: 3, concurrency: 2 },
      );
      expect(runs.filter((run) => run.startsWith('a'))).toEqual([
        'a@0#1',
        'a@11#2',
        'a@32#3',
        'a@100#1',
        'a@111#2',
      ]);
      expect(reports.filter((r) => r.key === 'a')[2]).toEqual({
        ...report('a', 'gave-up', { attempt: 3 }),
        at: 33,
      });
    }),
  );
});

describe('reconcileQueue: an overall token bucket on run starts', () => {
  it(
    'starts burst runs at once, then one per 1/perSecond, refilling up to burst',
    marbles((m) => {
      const { runs } = play(
        m.scheduler,
        m.cold('(abcd) 200ms (efg)'),
        {},
        {
          concurrency: 10,
          rateLimit: { perSecond: 100, burst: 2 },
        },
      );
      expect(runs.map((run) => run.split('#')[0])).toEqual([
        'a@0',
        'b@0',
        'c@10',
        'd@20',
        'e@206',
        'f@206',
        'g@216',
      ]);
    }),
  );

  it(
    'defaults to 10 per second with a burst of 100',
    marbles((m) => {
      const keys = Array.from({ length: 102 }, (_, i) => `k${i}`);
      const { calls } = play(m.scheduler, from(keys), {}, { concurrency: 200, rateLimit: {} });
      const starts = calls.map((call) => call.at);
      expect(starts.filter((at) => at === 0)).toHaveLength(100);
      expect(starts.slice(100)).toEqual([100, 200]);
    }),
  );
});

describe('reconcileQueue: trailing debounceMs', () => {
  it(
    'makes a key ready after that much quiet, each trigger restarting the wait',
    marbles((m) => {
      const { runs, reports } = play(m.scheduler, m.cold('ab-a--a'), {}, { debounceMs: 5 });
      expect(runs).toEqual(['b@6#1', 'a@11#1']);
      expect(reports.map((r) => r.queuedMs)).toEqual([0, 0]);
    }),
  );

  it(
    'debounces a trigger that came during a run from the end of that run',
    marbles((m) => {
      const { runs } = play(m.scheduler, m.cold('a------a'), { a: [{ ms: 5 }] }, { debounceMs: 3 });
      expect(runs).toEqual(['a@3#1', 'a@11#1']);
    }),
  );
});
