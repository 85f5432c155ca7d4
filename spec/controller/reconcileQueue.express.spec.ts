// The queue's express keys (what a sharded member's releases run as), in virtual time: a key
// whose run is cheap starts as soon as it is free, outside `concurrency` and the token bucket,
// and still never beside another run of its own key.
import { describe, expect, it } from '@jest/globals';
import { marbles } from 'rxjs-marbles/jest';
import { gatedReconcileQueue } from '../../src/controller/reconcileQueue.js';
import type { RunGate } from '../../src/controller/queue/RunGate.js';
import { scriptedReconcile } from './support/queueHarness.js';

describe('reconcileQueue with express keys', () => {
  it(
    'starts an express key at once beside a full queue, and without a token',
    marbles((m) => {
      const { reconcile, calls, peaks } = scriptedReconcile(m.scheduler, {
        a: [{ ms: 10 }],
        b: [{ ms: 10 }],
      });
      const express = new Set(['x', 'y']);
      // One worker and one token (burst 1, then one a second): a takes both.
      m.cold('abxy|')
        .pipe(
          gatedReconcileQueue(
            reconcile,
            { concurrency: 1, rateLimit: { perSecond: 1, burst: 1 }, scheduler: m.scheduler },
            undefined,
            { test: (key) => express.has(key), concurrency: 8 },
          ),
        )
        .subscribe();
      m.flush();
      const runs = calls.map((call) => `${call.key}@${call.at}`);
      // x and y start as they come; b waits for a's worker and for the next token (1 s).
      expect(runs).toEqual(['a@0', 'x@2', 'y@3', 'b@1000']);
      expect(peaks.perKey).toBe(1);
    }),
  );

  it(
    'an express key triggered while it runs runs once more after, never twice at once',
    marbles((m) => {
      const { reconcile, calls, peaks } = scriptedReconcile(m.scheduler, {
        x: [{ ms: 5 }, { ms: 5 }],
      });
      m.cold('x-x-x|')
        .pipe(
          gatedReconcileQueue(
            reconcile,
            { concurrency: 1, rateLimit: false, scheduler: m.scheduler },
            undefined,
            { test: () => true, concurrency: 8 },
          ),
        )
        .subscribe();
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['x@0', 'x@5']);
      expect(peaks.perKey).toBe(1);
    }),
  );

  it(
    'a key that is no longer express when its turn comes waits for a worker; a held one does not wait for its gate',
    marbles((m) => {
      const { reconcile, calls } = scriptedReconcile(m.scheduler, { a: [{ ms: 10 }] });
      const held = new Set(['y']);
      let opened: (key: string) => void = () => {};
      const gate: RunGate = {
        blocked: (key) => held.has(key),
        takeStale: () => false,
        listen: (listener) => void (opened = listener),
      };
      // x is express when it is triggered and ready; the key asked again when it starts is not.
      let asked = 0;
      m.cold('axy|')
        .pipe(
          gatedReconcileQueue(
            reconcile,
            { concurrency: 1, rateLimit: false, scheduler: m.scheduler },
            gate,
            { test: (key) => key === 'y' || (key === 'x' && asked++ === 0), concurrency: 8 },
          ),
        )
        .subscribe();
      m.scheduler.schedule(() => {
        held.delete('y');
        opened('y');
      }, 4);
      m.flush();
      // x waits for a's worker (10); y, held by its gate when let through, starts at once: an
      // express run starts no reconcile, so it reads nothing read-your-own-writes protects.
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['a@0', 'y@2', 'x@10']);
    }),
  );

  it(
    'a key waiting for a worker that becomes express (a drain mark came) is started at once',
    marbles((m) => {
      // One worker, busy 100 ms with a; x was ready as an ordinary key behind it when its drain
      // mark came (a trigger of a key already ready): it must not wait for a's worker.
      const { reconcile, calls } = scriptedReconcile(m.scheduler, { a: [{ ms: 100 }] });
      const express = new Set<string>();
      m.scheduler.schedule(() => express.add('x'), 5);
      m.cold('ax---x|')
        .pipe(
          gatedReconcileQueue(
            reconcile,
            { concurrency: 1, rateLimit: false, scheduler: m.scheduler },
            undefined,
            { test: (key) => express.has(key), concurrency: 8 },
          ),
        )
        .subscribe();
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['a@0', 'x@5']);
    }),
  );

  it(
    'an express key is not held by its gate (a release reads nothing read-your-own-writes protects)',
    marbles((m) => {
      // x's last run wrote an object its store has not shown yet (the gate holds x, until
      // expectationTimeoutMs in a controller); its drain mark comes at 5: the release starts then.
      // y is express from the start, and held too.
      const { reconcile, calls } = scriptedReconcile(m.scheduler);
      const held = new Set(['x', 'y']);
      const gate: RunGate = {
        blocked: (key) => held.has(key),
        takeStale: () => false,
        listen: () => undefined,
      };
      const express = new Set(['y']);
      m.scheduler.schedule(() => express.add('x'), 5);
      m.cold('xy---x|')
        .pipe(
          gatedReconcileQueue(
            reconcile,
            { concurrency: 1, rateLimit: false, scheduler: m.scheduler },
            gate,
            { test: (key) => express.has(key), concurrency: 8 },
          ),
        )
        .subscribe();
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['y@1', 'x@5']);
    }),
  );

  it(
    'runs at most its own concurrency of express keys at once, the oldest first',
    marbles((m) => {
      const { reconcile, calls, peaks } = scriptedReconcile(m.scheduler, {
        w: [{ ms: 4 }],
        x: [{ ms: 4 }],
        y: [{ ms: 4 }],
        z: [{ ms: 4 }],
      });
      const depths: string[] = [];
      m.cold('(wxyz)|')
        .pipe(
          gatedReconcileQueue(
            reconcile,
            {
              concurrency: 1,
              rateLimit: false,
              scheduler: m.scheduler,
              onQueue: (state) => depths.push(`${m.scheduler.now()}:${state.depth}`),
            },
            undefined,
            { test: () => true, concurrency: 2 },
          ),
        )
        .subscribe();
      m.flush();
      expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['w@0', 'x@0', 'y@4', 'z@4']);
      expect(peaks.total).toBe(2);
      // y and z waiting for the lane are queued: the depth metrics read counts them.
      expect(depths).toContain('0:2');
    }),
  );
});
