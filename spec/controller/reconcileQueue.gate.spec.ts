// The queue's RunGate (what the controller's read-your-own-writes holds keys back with), in
// virtual time: a held key takes no worker and no token, runs when its gate opens, and its
// report says when it ran past a wait that timed out.
import { describe, expect, it } from '@jest/globals';
import { marbles } from 'rxjs-marbles/jest';
import { Action } from '../../src/controller/Action.js';
import type { RunGate } from '../../src/controller/queue/RunGate.js';
import { gatedReconcileQueue } from '../../src/controller/reconcileQueue.js';
import type { QueueState, ReconcileReport } from '../../src/controller/ReconcileReport.js';
import { scriptedReconcile } from './support/queueHarness.js';

/** A gate the test opens: `hold(key)` closes it for that key until `open(key, stale?)`. */
function testGate() {
  const held = new Set<string>();
  const stale = new Set<string>();
  let opened: (key: string) => void = () => {};
  const gate: RunGate = {
    blocked: (key) => held.has(key),
    takeStale: (key) => stale.delete(key),
    listen: (listener) => void (opened = listener),
  };
  return {
    gate,
    hold: (key: string) => void held.add(key),
    open: (key: string, wasStale = false) => {
      held.delete(key);
      if (wasStale) stale.add(key);
      opened(key);
    },
  };
}

describe('reconcileQueue with a RunGate', () => {
  it(
    'holds a ready key without a worker: another key runs meanwhile; it runs once its gate opens',
    marbles((m) => {
      const { gate, hold, open } = testGate();
      const { reconcile, calls } = scriptedReconcile(m.scheduler, {
        a: [{ ms: 2, action: Action.requeueAfter(3) }],
      });
      const reports: Array<ReconcileReport & { at: number }> = [];
      const states: QueueState[] = [];
      m.cold('a---b-----------|')
        .pipe(
          gatedReconcileQueue(
            reconcile,
            {
              rateLimit: false,
              concurrency: 1,
              scheduler: m.scheduler,
              onQueue: (s) => states.push(s),
            },
            gate,
          ),
        )
        .subscribe((r) => reports.push({ ...r, at: m.scheduler.now() }));
      // a's run writes something its store has not shown yet: held from its end (2).
      m.scheduler.schedule(() => hold('a'), 1);
      m.scheduler.schedule(() => open('a'), 12);
      m.flush();
      const runs = calls.map((call) => `${call.key}@${call.at}`);
      // a's requeue at 5 waits for its gate (12); b (at 4) takes the one worker meanwhile.
      expect(runs).toEqual(['a@0', 'b@4', 'a@12']);
      expect(reports.at(-1)).toMatchObject({ key: 'a', queuedMs: 7 });
      expect(reports.every((r) => r.staleRead === undefined)).toBe(true);
      // While held, it counts as waiting, not as depth.
      expect(states).toContainEqual({ depth: 0, running: 0, waiting: 1, adds: 2 });
    }),
  );

  it(
    'a trigger of a held key does not run it, and the run after a timed-out wait reports staleRead',
    marbles((m) => {
      const { gate, hold, open } = testGate();
      const { reconcile, calls } = scriptedReconcile(m.scheduler);
      const reports: ReconcileReport[] = [];
      hold('a');
      m.cold('a-a-a---------|')
        .pipe(gatedReconcileQueue(reconcile, { rateLimit: false, scheduler: m.scheduler }, gate))
        .subscribe((r) => reports.push(r));
      m.scheduler.schedule(() => open('a', true), 8);
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['a@8']);
      expect(reports).toEqual([expect.objectContaining({ key: 'a', staleRead: true })]);
    }),
  );

  it(
    'completes only once no key is held',
    marbles((m) => {
      const { gate, hold, open } = testGate();
      const { reconcile } = scriptedReconcile(m.scheduler);
      hold('a');
      let completedAt = -1;
      m.cold('a|')
        .pipe(gatedReconcileQueue(reconcile, { rateLimit: false, scheduler: m.scheduler }, gate))
        .subscribe({ complete: () => (completedAt = m.scheduler.now()) });
      m.scheduler.schedule(() => open('a'), 5);
      m.flush();
      expect(completedAt).toBe(6);
    }),
  );
});
