import { describe, expect, it } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { EventDropReason, EventRecord } from '../../../src/controller/events/EventRecord.js';
import type {
  EventBody,
  EventSink,
  SeriesUpdate,
} from '../../../src/controller/events/EventSink.js';
import { RecorderCore } from '../../../src/controller/events/RecorderCore.js';

const pod = (name: string, uid = `uid-${name}`) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', uid },
});
const scaled: EventRecord = { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'to 3' };

type Write =
  | { at: number; op: 'create'; name: string; note?: string; regarding?: string }
  | { at: number; op: 'series'; name: string; count: number };

/** A recorder on virtual time with a sink that records each write and answers at once. */
function setUp({ sink: custom }: { sink?: Partial<EventSink> } = {}) {
  const scheduler = new VirtualTimeScheduler();
  const writes: Write[] = [];
  const drops: EventDropReason[] = [];
  const sink: EventSink = {
    create: async (body: EventBody) => {
      writes.push({
        at: scheduler.now(),
        op: 'create',
        name: body.metadata.name,
        note: body.note,
        regarding: body.regarding.name,
      });
    },
    updateSeries: async (body: EventBody, series: SeriesUpdate) => {
      writes.push({
        at: scheduler.now(),
        op: 'series',
        name: body.metadata.name,
        count: series.count,
      });
    },
    ...custom,
  };
  const core = new RecorderCore(sink, {
    reportingController: 'example.com/web',
    reportingInstance: 'web-0',
    scheduler,
    seriesUpdateIntervalMs: 5_000,
    maxPendingWrites: 3,
    writeTimeoutMs: 60_000,
    onDrop: (reason) => drops.push(reason),
  });
  /** Runs `marbles` (one frame per ms; each letter a call of record) in virtual time. */
  async function drive(marbles: string, calls: Record<string, () => void>, untilMs = 0) {
    const start = scheduler.now();
    const factor = TestScheduler.frameTimeFactor;
    TestScheduler.frameTimeFactor = 1; // one frame per ms, as in TestScheduler.run
    const parsed = TestScheduler.parseMarbles(marbles, undefined, undefined, undefined, true);
    TestScheduler.frameTimeFactor = factor;
    for (const { frame, notification } of parsed) {
      if (notification.kind !== 'N') continue;
      await advanceTo(start + frame);
      calls[notification.value as string]();
      await settle();
    }
    await advanceTo(Math.max(start + untilMs, scheduler.now()));
  }
  async function advanceTo(time: number) {
    if (time > scheduler.now()) scheduler.schedule(() => undefined, time - scheduler.now());
    scheduler.maxFrames = time;
    scheduler.flush();
    await settle();
    scheduler.flush();
    await settle();
  }
  return { core, writes, drops, drive, scheduler };
}

/** Lets the sink's promises and the recorder's continuations run. */
async function settle() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('RecorderCore: series', () => {
  it('makes 60 identical events in a burst one Event: a create and one count update (2 writes)', async () => {
    const { core, writes, drive } = setUp();
    const burst = Array.from({ length: 60 }, () => 'a').join('');
    await drive(burst, { a: () => core.record(pod('web'), scaled) }, 20_000);
    expect(writes).toEqual([
      {
        at: 0,
        op: 'create',
        name: expect.stringMatching(/^web\./),
        note: 'to 3',
        regarding: 'web',
      },
      { at: 5_000, op: 'series', name: writes[0].name, count: 60 },
    ]);
  });

  it('writes the count at most once per interval while the event repeats', async () => {
    const { core, writes, drive } = setUp();
    // one event a second for 10 s
    await drive(
      'a 999ms a 999ms a 999ms a 999ms a 999ms a 999ms a 999ms a 999ms a 999ms a',
      {
        a: () => core.record(pod('web'), scaled),
      },
      30_000,
    );
    expect(writes.map((w) => [w.at, w.op, 'count' in w ? w.count : 1])).toEqual([
      [0, 'create', 1],
      [5_000, 'series', 5], // the flush at 5 s runs before that second's event
      [10_000, 'series', 10],
    ]);
  });

  it('never merges two objects, or two notes, or a re-created object (another uid)', async () => {
    const { core, writes, drive } = setUp();
    await drive(
      'abcd',
      {
        a: () => core.record(pod('web'), scaled),
        b: () => core.record(pod('api'), scaled),
        c: () => core.record(pod('web'), { ...scaled, note: 'to 4' }),
        d: () => core.record(pod('web', 'uid-2'), scaled),
      },
      20_000,
    );
    expect(writes.map((w) => w.op)).toEqual(['create', 'create', 'create', 'create']);
    expect(new Set(writes.map((w) => w.name)).size).toBe(4);
  });

  it('starts a new Event when the same event comes back after 6 minutes of quiet', async () => {
    const { core, writes, drive } = setUp();
    await drive('a 360001ms a', { a: () => core.record(pod('web'), scaled) }, 400_000);
    expect(writes.map((w) => [w.at, w.op])).toEqual([
      [0, 'create'],
      [360_002, 'create'],
    ]);
  });
});

describe('RecorderCore: the per-object token bucket', () => {
  it('drops what passes a burst of 25 and counts it, then allows one more per 5 minutes', async () => {
    const { core, writes, drops, drive } = setUp({ sink: {} });
    let n = 0;
    const distinct = () => core.record(pod('web'), { ...scaled, note: `step ${n++}` });
    await drive('a'.repeat(30), { a: distinct });
    expect(writes).toHaveLength(25);
    expect(drops).toEqual(Array(5).fill('rate-limited'));
    // another object has its own bucket
    await drive('b', { b: () => core.record(pod('api'), scaled) });
    expect(writes).toHaveLength(26);
    // one token back after 5 minutes, not before
    await drive('299000ms a', { a: distinct });
    expect(writes).toHaveLength(26);
    await drive('2000ms a', { a: distinct });
    expect(writes).toHaveLength(27);
  });
});

describe('RecorderCore: never in the way', () => {
  it('drops an invalid event with a reason, and never throws', async () => {
    const { core, writes, drops } = setUp();
    expect(() => core.record(pod('web'), { ...scaled, reason: 'not camel' })).not.toThrow();
    expect(() => core.record(null as never, scaled)).not.toThrow();
    expect(() => core.record(pod('web'), { ...scaled, type: 'Error' as never })).not.toThrow();
    await settle();
    expect(writes).toEqual([]);
    expect(drops).toEqual(['invalid', 'invalid', 'invalid']);
  });

  it('bounds the writes waiting for a stalled server, and counts failed writes', async () => {
    const pending: Array<() => void> = [];
    const stalled = setUp({
      sink: { create: () => new Promise<void>((resolve) => pending.push(resolve)) },
    });
    for (const name of ['a', 'b', 'c', 'd', 'e']) stalled.core.record(pod(name), scaled);
    await settle();
    expect(pending).toHaveLength(3);
    expect(stalled.drops).toEqual(['overflow', 'overflow']);
    stalled.core.close();

    const failing = setUp({ sink: { create: () => Promise.reject(new Error('503')) } });
    failing.core.record(pod('web'), scaled);
    await settle();
    expect(failing.drops).toEqual(['write-failed']);
  });
});
