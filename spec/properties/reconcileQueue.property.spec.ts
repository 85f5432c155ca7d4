/**
 * Properties of `reconcileQueue` in virtual time (issue 39): for any schedule of triggers and
 * any script of run durations and failures, a key never runs twice at once, the last trigger of
 * every key is followed by a run of it, at most `concurrency` runs at once, and the attempt
 * count (the backoff's exponent) grows only for a run at or after its scheduled retry: an early
 * trigger runs the key but never makes its backoff longer.
 */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { merge, timer } from 'rxjs';
import { map } from 'rxjs/operators';
import { TestScheduler } from 'rxjs/testing';
import { reconcileQueue } from '../../src/controller/reconcileQueue.js';
import type { ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { scriptedReconcile, type Step } from '../controller/support/queueHarness.js';
import { checkProperty } from './settings.js';

const KEYS = ['a', 'b', 'c', 'd'];
const BACKOFF = { initialMs: 10, factor: 2, maxMs: 80, jitter: 0.1 };
/** The delay after the n-th counted failure (`random` 0.5: the jitter moves it nowhere). */
const delayOf = (n: number) =>
  Math.min(BACKOFF.maxMs, BACKOFF.initialMs * BACKOFF.factor ** (n - 1));

const schedule: fc.Arbitrary<Schedule> = fc.record({
  triggers: fc.array(fc.record({ key: fc.constantFrom(...KEYS), at: fc.nat({ max: 200 }) }), {
    minLength: 1,
    maxLength: 30,
  }),
  scripts: fc.dictionary(
    fc.constantFrom(...KEYS),
    fc.array(fc.record({ ms: fc.integer({ min: 1, max: 30 }), fail: fc.boolean() }), {
      maxLength: 6,
    }),
  ),
  concurrency: fc.integer({ min: 1, max: 3 }),
});

/** Runs the schedule to its end in virtual time: every call, every report. */
interface Schedule {
  triggers: Array<{ key: string; at: number }>;
  scripts: Partial<Record<string, Step[]>>;
  concurrency: number;
}

function play({ triggers, scripts, concurrency }: Schedule) {
  const scheduler = new TestScheduler(() => undefined);
  const copies: Record<string, Step[]> = Object.fromEntries(
    Object.entries(scripts).map(([k, steps]) => [k, (steps ?? []).map((step) => ({ ...step }))]),
  );
  const { reconcile, calls, peaks } = scriptedReconcile(scheduler, copies);
  const reports: Array<ReconcileReport & { at: number }> = [];
  let completed = false;
  merge(...triggers.map((t) => timer(t.at, scheduler).pipe(map((): string => t.key))))
    .pipe(
      reconcileQueue(reconcile, {
        concurrency,
        rateLimit: false,
        scheduler,
        random: () => 0.5,
        backoff: BACKOFF,
      }),
    )
    .subscribe({
      next: (r) => reports.push({ ...r, at: scheduler.now() }),
      complete: () => (completed = true),
    });
  scheduler.flush();
  return { calls, reports, peaks, completed };
}

describe('reconcileQueue properties', () => {
  it('one run per key at a time, every trigger answered, backoff never grown early', async () => {
    await checkProperty(
      'reconcileQueue: one run per key, every trigger answered, no early backoff growth',
      fc.property(schedule, (s) => {
        const { calls, reports, peaks, completed } = play(s);
        if (!completed || peaks.perKey > 1 || peaks.total > s.concurrency) return false;
        // Every key's last trigger is followed by a run of it that started at or after it.
        for (const key of KEYS) {
          const last = Math.max(-1, ...s.triggers.filter((t) => t.key === key).map((t) => t.at));
          if (last >= 0 && !calls.some((c) => c.key === key && c.at >= last)) return false;
        }
        // The backoff's model: failures of runs at or after their retry are counted (the delay
        // grows with them); an early run (a trigger during the backoff) reports the next
        // attempt but its failure keeps the retry already due; a success resets the count.
        for (const key of KEYS) {
          let counted = 0;
          let retryAt: number | undefined;
          for (const run of reports.filter((r) => r.key === key)) {
            const start = run.at - run.durationMs;
            if (run.attempt !== counted + 1) return false;
            if (run.outcome !== 'error') {
              counted = 0;
              retryAt = undefined;
              continue;
            }
            const early = retryAt !== undefined && start < retryAt;
            if (early) {
              if ((run.nextRunInMs ?? 0) > Math.max(0, retryAt! - run.at)) return false;
            } else {
              counted++;
              if (run.nextRunInMs !== delayOf(counted)) return false;
              retryAt = run.at + delayOf(counted);
            }
          }
        }
        return true;
      }),
      300,
    );
  });
});
