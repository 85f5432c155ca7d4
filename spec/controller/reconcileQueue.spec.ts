import { describe, expect, it } from '@jest/globals';
import { NEVER, Subject, asyncScheduler, of } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { Action } from '../../src/controller/Action.js';
import { reconcileQueue } from '../../src/controller/reconcileQueue.js';
import type { QueueState, ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { report, scriptedReconcile } from './support/queueHarness.js';

const noLimit = { rateLimit: false } as const;

describe('reconcileQueue: a key never runs twice at once', () => {
  it(
    'runs a key triggered during its run only after that run, even with free workers',
    marbles((m) => {
      const { reconcile, calls, peaks } = scriptedReconcile(m.scheduler, { a: [{ ms: 4 }] });
      const keys = m.cold('aba-----|');
      const queue = reconcileQueue(reconcile, {
        ...noLimit,
        concurrency: 3,
        scheduler: m.scheduler,
      });
      m.expect(keys.pipe(queue)).toBeObservable('--b-ac--|', {
        a: report('a', 'done', { durationMs: 4 }),
        b: report('b'),
        c: report('a'),
      });
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['a@0', 'b@1', 'a@4']);
      expect(peaks.perKey).toBe(1);
    }),
  );
});

describe('reconcileQueue: a key triggered while it waits runs once', () => {
  it(
    'coalesces every trigger of a key that is ready but not running',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, { x: [{ ms: 5 }] });
      const states: QueueState[] = [];
      const queue = reconcileQueue(reconcile, {
        ...noLimit,
        scheduler: m.scheduler,
        onQueue: (state) => states.push(state),
      });
      m.expect(m.cold('xaaa----|').pipe(queue)).toBeObservable('-----xa-|', {
        x: report('x', 'done', { durationMs: 5 }),
        a: report('a', 'done', { queuedMs: 4 }),
      });
      m.flush();
      expect(calls.map((call) => call.key)).toEqual(['x', 'a']);
      expect(states.at(-1)).toEqual({ depth: 0, running: 0, waiting: 0, adds: 4 });
      expect(Math.max(...states.map((state) => state.depth))).toBe(1);
    }),
  );
});

describe('reconcileQueue: a key triggered while it runs runs once more after that run', () => {
  it(
    'runs exactly once more for any number of triggers during a run',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, { a: [{ ms: 4 }] });
      const queue = reconcileQueue(reconcile, { ...noLimit, scheduler: m.scheduler });
      m.expect(m.cold('aaaa------|').pipe(queue)).toBeObservable('----ab----|', {
        a: report('a', 'done', { durationMs: 4 }),
        b: report('a'),
      });
      m.flush();
      expect(calls.map((call) => call.at)).toEqual([0, 4]);
    }),
  );
});

describe('reconcileQueue: the diagram of its JSDoc', () => {
  it(
    'runs as drawn',
    marbles((m) => {
      const three = { ms: 3 };
      const { reconcile } = scriptedReconcile(m.scheduler, { a: [three, three], b: [three] });
      const queue = reconcileQueue(reconcile, { ...noLimit, scheduler: m.scheduler });
      m.expect(m.cold('-a-a-b--------|').pipe(queue)).toBeObservable('----a--A--b---|', {
        a: report('a', 'done', { durationMs: 3 }),
        A: report('a', 'done', { durationMs: 3 }),
        b: report('b', 'done', { durationMs: 3, queuedMs: 2 }),
      });
    }),
  );
});

describe('reconcileQueue: at most `concurrency` runs at once', () => {
  it(
    'starts a third key only when one of two runs ends',
    marbles((m) => {
      const three = { ms: 3 };
      const { reconcile, peaks } = scriptedReconcile(m.scheduler, {
        a: [three],
        b: [three],
        c: [three],
      });
      const queue = reconcileQueue(reconcile, {
        ...noLimit,
        concurrency: 2,
        scheduler: m.scheduler,
      });
      m.expect(m.cold('abc------|').pipe(queue)).toBeObservable('---ab-c--|', {
        a: report('a', 'done', { durationMs: 3 }),
        b: report('b', 'done', { durationMs: 3 }),
        c: report('c', 'done', { durationMs: 3, queuedMs: 1 }),
      });
      m.flush();
      expect(peaks.total).toBe(2);
    }),
  );
});

describe('reconcileQueue: the key ready the longest runs first', () => {
  it(
    'keeps a coalesced key in its place, and a requeued key at the time it became ready',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, {
        x: [{ ms: 5 }],
        r: [{ action: Action.requeueAfter(1) }],
      });
      const queue = reconcileQueue(reconcile, { ...noLimit, scheduler: m.scheduler });
      // x runs 0-5; r (ready at 0, behind x) would be next, but is triggered only at 1 and
      // requeued; c at 1 (again at 3), b at 2, a at 4.
      m.expect(m.cold('xcbca-----|').pipe(queue)).toBeObservable('-----xcba-|', {
        x: report('x', 'done', { durationMs: 5 }),
        c: report('c', 'done', { queuedMs: 4 }),
        b: report('b', 'done', { queuedMs: 4 }),
        a: report('a', 'done', { queuedMs: 3 }),
      });
      m.flush();
      expect(calls.map((call) => call.key).join('')).toBe('xcba');
    }),
  );

  it(
    'orders a key whose requeue came due before a later trigger ahead of it',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, {
        r: [{ action: { requeueAfterMs: 2 } }],
        x: [{ ms: 5 }],
      });
      const queue = reconcileQueue(reconcile, { ...noLimit, scheduler: m.scheduler });
      // r runs 0-1 and is due at 3; x runs 1-6; n is triggered at 4: r (ready at 3) goes first.
      m.expect(m.cold('rx--n------|').pipe(queue)).toBeObservable('-r----xRn--|', {
        r: report('r', 'requeue', { nextRunInMs: 2 }),
        x: report('x', 'done', { durationMs: 5, queuedMs: 0 }),
        R: report('r', 'done', { queuedMs: 3 }),
        n: report('n', 'done', { queuedMs: 3 }),
      });
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['r@0', 'x@1', 'r@6', 'n@7']);
    }),
  );
});

describe('reconcileQueue: errors are reports, never Observable errors', () => {
  it(
    'reports a throw and an Observable error, and goes on with the other keys',
    marbles((m) => {
      const { reconcile } = scriptedReconcile(m.scheduler, { b: [{ fail: true }] });
      const thrown = new Error('thrown');
      const queue = reconcileQueue(
        (key, context) => {
          if (key === 'a') throw thrown;
          return reconcile(key, context);
        },
        { ...noLimit, scheduler: m.scheduler, maxAttempts: 1 },
      );
      m.expect(m.cold('abc---|').pipe(queue)).toBeObservable('a-bc--|', {
        a: report('a', 'gave-up', { error: thrown, durationMs: 0 }),
        b: report('b', 'gave-up', { queuedMs: 0 }),
        c: report('c', 'done', { queuedMs: 0 }),
      });
    }),
  );

  it(
    'errors only when its input errors, and aborts the runs in flight then',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, { a: [{ ms: 10 }] });
      const queue = reconcileQueue(reconcile, { ...noLimit, scheduler: m.scheduler });
      const failure = new Error('input failed');
      m.expect(m.cold('a--#', undefined, failure).pipe(queue)).toBeObservable('---#', {}, failure);
      m.flush();
      expect(calls[0].context.signal.aborted).toBe(true);
    }),
  );
});

describe('reconcileQueue: unsubscribing aborts the runs in flight and drops the queue', () => {
  it(
    'aborts the signal of every run in flight and never starts what was queued or timed',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, {
        a: [{ ms: 10 }],
        b: [{ ms: 10 }],
        r: [{ action: Action.requeueAfter(5) }],
      });
      // At the unsubscription (5) a and b run, r waits for its requeue (6), a worker is free.
      const queue = reconcileQueue(reconcile, {
        ...noLimit,
        concurrency: 3,
        scheduler: m.scheduler,
      });
      m.expect(m.cold('r-a-b').pipe(queue), '-----!').toBeObservable('-r---', {
        r: report('r', 'requeue', { nextRunInMs: 5 }),
      });
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['r@0', 'a@2', 'b@4']);
      expect(calls.map((call) => call.context.signal.aborted)).toEqual([false, true, true]);
    }),
  );
});

describe('reconcileQueue: `stop` drains the runs in flight, then completes', () => {
  it(
    'lets runs in flight finish and report, starts nothing more, then completes',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, {
        a: [{ ms: 5 }],
        b: [{ ms: 10 }],
      });
      const stop = m.cold('---s');
      const queue = reconcileQueue(reconcile, {
        ...noLimit,
        concurrency: 2,
        scheduler: m.scheduler,
        stop,
      });
      // a and b run, c is ready when the stop comes at 3, d is triggered after it.
      m.expect(m.cold('abcd-------').pipe(queue)).toBeObservable('-----a-----(b|)', {
        a: report('a', 'done', { durationMs: 5 }),
        b: report('b', 'done', { durationMs: 10 }),
      });
      m.flush();
      expect(calls.map((call) => call.key)).toEqual(['a', 'b']);
      expect(calls[0].context.signal.aborted).toBe(false);
    }),
  );

  it(
    'aborts the runs still in flight after drainTimeoutMs and completes',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, { a: [{ ms: 20 }] });
      const stop = m.cold('--s');
      const queue = reconcileQueue(reconcile, {
        ...noLimit,
        scheduler: m.scheduler,
        stop,
        drainTimeoutMs: 5,
      });
      m.expect(m.cold('a').pipe(queue)).toBeObservable('-------|');
      m.flush();
      expect(calls[0].context.signal.aborted).toBe(true);
    }),
  );

  it(
    'completes at once when nothing runs',
    marbles((m) => {
      const { reconcile } = scriptedReconcile(m.scheduler);
      const queue = reconcileQueue(reconcile, {
        ...noLimit,
        scheduler: m.scheduler,
        stop: m.cold('--s'),
      });
      m.expect(m.cold('a').pipe(queue)).toBeObservable('-a|', { a: report('a') });
    }),
  );
});

describe('reconcileQueue: Promise reconciles', () => {
  it('takes an Action from a Promise, reports a rejection, aborts a pending run', async () => {
    const reports: ReconcileReport[] = [];
    const keys = new Subject<string>();
    let pending: AbortSignal | undefined;
    const subscription = keys
      .pipe(
        reconcileQueue(
          async (key, { signal }) => {
            if (key === 'a') return Action.requeueAfter(60_000);
            if (key === 'b') throw new Error('b failed');
            pending = signal;
            return new Promise<void>(() => undefined);
          },
          { concurrency: 3, maxAttempts: 1, scheduler: asyncScheduler },
        ),
      )
      .subscribe((r) => reports.push(r));
    keys.next('a');
    keys.next('b');
    keys.next('c');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reports.map((r) => [r.key, r.outcome, r.nextRunInMs])).toEqual([
      ['a', 'requeue', 60_000],
      ['b', 'gave-up', undefined],
    ]);
    expect(pending?.aborted).toBe(false);
    subscription.unsubscribe();
    expect(pending?.aborted).toBe(true);
  });

  it('rejects a concurrency or maxAttempts below 1', () => {
    expect(() => reconcileQueue(() => of(undefined), { concurrency: 0 })).toThrow(RangeError);
    expect(() => reconcileQueue(() => NEVER, { maxAttempts: 0 })).toThrow(RangeError);
  });
});
