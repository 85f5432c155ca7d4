import { defer, throwError, timer, type Observable } from 'rxjs';
import { mergeMap } from 'rxjs/operators';
import type { TestScheduler } from 'rxjs/testing';
import type { Action } from '../../../src/controller/Action.js';
import type { ReconcileContext } from '../../../src/controller/ReconcileQueueConfig.js';
import type { ReconcileReport } from '../../../src/controller/ReconcileReport.js';

/** One scripted run: how long it takes, and whether it fails or asks for a requeue. */
export interface Step {
  ms?: number;
  fail?: boolean;
  action?: Action;
}

export interface Call {
  key: string;
  attempt: number;
  at: number;
  context: ReconcileContext;
}

/**
 * A reconcile for marble specs: each key plays its script of steps in order (then 1 ms
 * successes), in the TestScheduler's virtual time. It records every call and the most runs of
 * one key and of all keys at once.
 */
export function scriptedReconcile(scheduler: TestScheduler, scripts: Record<string, Step[]> = {}) {
  const calls: Call[] = [];
  const active = new Map<string, number>();
  let running = 0;
  const peaks = { perKey: 0, total: 0 };
  const reconcile = (key: string, context: ReconcileContext): Observable<Action | void> =>
    defer(() => {
      calls.push({ key, attempt: context.attempt, at: scheduler.now(), context });
      const step = scripts[key]?.shift() ?? {};
      const mine = (active.get(key) ?? 0) + 1;
      active.set(key, mine);
      running++;
      peaks.perKey = Math.max(peaks.perKey, mine);
      peaks.total = Math.max(peaks.total, running);
      const done = () => {
        active.set(key, (active.get(key) ?? 1) - 1);
        running--;
      };
      return timer(step.ms ?? 1, scheduler).pipe(
        mergeMap(() => {
          done();
          return step.fail ? throwError(() => new Error(`${key} failed`)) : [step.action];
        }),
      );
    });
  return { reconcile, calls, peaks };
}

/** A report with the defaults of a first, immediate, 1 ms, successful run. */
export function report(
  key: string,
  outcome: ReconcileReport['outcome'] = 'done',
  fields: Partial<ReconcileReport> = {},
): ReconcileReport {
  const out: ReconcileReport = { key, outcome, attempt: 1, queuedMs: 0, durationMs: 1, ...fields };
  if ((outcome === 'error' || outcome === 'gave-up') && !('error' in fields)) {
    out.error = new Error(`${key} failed`);
  }
  return out;
}
