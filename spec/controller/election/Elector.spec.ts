import { describe, expect, it } from '@jest/globals';
import { type SchedulerLike, Subscription } from 'rxjs';
import { electionSettings } from '../../../src/controller/election/electionSettings.js';
import { Elector } from '../../../src/controller/election/Elector.js';
import type {
  LeaseApi,
  LeaseObject,
  LeaseResult,
} from '../../../src/controller/election/leaseApi.js';
import { WatchError } from '../../../src/WatchError.js';

// The election's arithmetic in virtual time, exactly: an in-memory Lease API whose answers take
// a set time, and a scheduler whose clock moves only when the spec says so (promise
// continuations run between timers, as on a real event loop).

interface Timer {
  at: number;
  seq: number;
  work: () => void;
  cancelled: boolean;
}

class ManualScheduler {
  time = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now = (): number => this.time;

  schedule(work: () => void, delay = 0): Subscription {
    const timer: Timer = { at: this.time + delay, seq: this.seq++, work, cancelled: false };
    this.timers.push(timer);
    return new Subscription(() => {
      timer.cancelled = true;
    });
  }

  /** Runs every timer due up to `until`, in time order, letting promises settle between them. */
  async advanceTo(until: number): Promise<void> {
    for (;;) {
      await settle();
      const due = this.timers
        .filter((t) => !t.cancelled && t.at <= until)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.work();
    }
    this.time = until;
    await settle();
  }
}

const conflict = (message: string): WatchError =>
  new WatchError(message, { statusCode: 409, errorType: 'UNKNOWN_ERROR', resourcePath: '/' });

const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

/** A Lease on an in-memory "server": resourceVersions, 409 on a stale one, answers after `latencyMs`. */
class FakeLeases implements LeaseApi {
  lease: LeaseObject | undefined;
  latencyMs = 0;
  failing = false;
  private rv = 1;
  readonly writes: { at: number; holder: string | undefined }[] = [];
  /** Updates refused for a stale resourceVersion. */
  conflicts = 0;

  constructor(private readonly scheduler: ManualScheduler) {}

  /** Another party writes the lease (a rival holder, a label change). */
  change(spec: LeaseObject['spec']): void {
    this.lease = {
      metadata: { name: 'lock', resourceVersion: String(++this.rv) },
      spec: { ...this.lease?.spec, ...spec },
    };
  }

  private answer<T>(signal: AbortSignal, result: () => LeaseResult<T>): Promise<LeaseResult<T>> {
    return new Promise((resolve) => {
      const fail = (status: number, message: string) =>
        resolve({
          ok: false,
          error: new WatchError(message, {
            statusCode: status,
            errorType: 'SYSTEM_ERROR',
            resourcePath: '/',
          }),
        });
      // The server decides when the request arrives (at once); the answer takes latencyMs.
      const failing = this.failing;
      const outcome = failing ? undefined : result();
      const timer = this.scheduler.schedule(() => {
        if (outcome === undefined) fail(500, 'failing');
        else resolve(outcome);
      }, this.latencyMs);
      signal.addEventListener('abort', () => {
        timer.unsubscribe();
        fail(0, 'aborted');
      });
    });
  }

  get(signal: AbortSignal): Promise<LeaseResult<LeaseObject | undefined>> {
    return this.answer(signal, () => ({
      ok: true,
      value: this.lease && structuredClone(this.lease),
    }));
  }

  create(lease: LeaseObject, signal: AbortSignal): Promise<LeaseResult<LeaseObject>> {
    return this.answer(signal, () => {
      if (this.lease !== undefined) return { ok: false, error: conflict('exists') };
      return this.store(lease);
    });
  }

  update(lease: LeaseObject, signal: AbortSignal): Promise<LeaseResult<LeaseObject>> {
    return this.answer(signal, () => {
      if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion) {
        this.conflicts++;
        return { ok: false, error: conflict('conflict') };
      }
      return this.store(lease);
    });
  }

  private store(lease: LeaseObject): LeaseResult<LeaseObject> {
    this.lease = {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, name: 'lock', resourceVersion: String(++this.rv) },
    };
    this.writes.push({ at: this.scheduler.time, holder: this.lease.spec?.holderIdentity });
    return { ok: true, value: structuredClone(this.lease) };
  }
}

function setup(identity = 'me') {
  const scheduler = new ManualScheduler();
  const api = new FakeLeases(scheduler);
  const settings = electionSettings({
    namespace: 'ns',
    name: 'lock',
    identity,
    scheduler: scheduler as unknown as SchedulerLike,
  });
  const emitted: [number, boolean][] = [];
  const elector = new Elector(api, settings, (leading) => emitted.push([scheduler.time, leading]));
  return { scheduler, api, elector, emitted };
}

describe('Elector (virtual time, client-go defaults: lease 15 s, renew deadline 10 s, retry 2 s)', () => {
  it('the renew deadline counts from the START of the last successful write, not its answer', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.latencyMs = 300;
    elector.start();
    await scheduler.advanceTo(1_000);
    // Read (404) at 0-300, created at 300-600: leading from then, its deadline from 0.
    expect(emitted).toEqual([
      [0, false],
      [600, true],
    ]);
    await scheduler.advanceTo(2_100); // the renewal sent at 2 000 succeeded at 2 300
    api.failing = true;
    await scheduler.advanceTo(30_000);
    // Lost at 2 000 + 10 000 (the server applied that renewal after 2 000: every standby saw
    // it later still), never at 2 300 + 10 000.
    expect(emitted).toEqual([
      [0, false],
      [600, true],
      [12_000, false],
    ]);
    elector.stop();
  });

  it('a slow read before the write does not eat the deadline: it counts from the write, not the try', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.latencyMs = 3_000;
    elector.start();
    await scheduler.advanceTo(3_000);
    // Read (404) at 0-3 000, the create sent at 3 000: it succeeds (at 6 000), nothing after it.
    expect(api.writes).toEqual([{ at: 3_000, holder: 'me' }]);
    api.failing = true;
    await scheduler.advanceTo(30_000);
    // Lost at 3 000 + 10 000; counted from the try's start (0) it led for 4 s of a 10 s deadline.
    expect(emitted).toEqual([
      [0, false],
      [6_000, true],
      [13_000, false],
    ]);
    elector.stop();
  });

  it('a standby takes an unrenewed lease exactly a lease duration after it first saw it', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.change({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    await scheduler.advanceTo(500);
    elector.start(); // first read at 500
    await scheduler.advanceTo(20_000);
    expect(emitted).toEqual([
      [500, false],
      [15_500, true],
    ]);
    expect(api.writes[0]).toEqual({ at: 15_500, holder: 'me' });
    elector.stop();
  });

  it('each change of the lease restarts the wait, from when this process saw the change', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.change({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    elector.start(); // reads at 0, 2 000, 4 000, ...
    await scheduler.advanceTo(5_000);
    api.change({ renewTime: '2000-01-01T00:00:00.000000Z' }); // a renewal, seen by the read at 6 000
    await scheduler.advanceTo(20_999);
    expect(emitted).toEqual([[0, false]]);
    await scheduler.advanceTo(30_000);
    expect(emitted).toEqual([
      [0, false],
      [21_000, true],
    ]);
    elector.stop();
  });

  it('a renewal a watch noticed first counts from then: expiry is judged from the earliest sighting', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.change({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    elector.start(); // reads at 0, 2 000, 4 000, 6 000, ...
    await scheduler.advanceTo(5_000);
    api.change({ renewTime: '2000-01-01T00:00:00.000000Z' }); // the holder's last renewal
    elector.notice(structuredClone(api.lease!), 5_000); // a watch saw it at once
    // The read at 6 000 sees the same record: it does not restart the wait.
    await scheduler.advanceTo(19_999);
    expect(emitted).toEqual([[0, false]]);
    await scheduler.advanceTo(30_000);
    // 15 s after the watch saw the renewal, not after the read did (21 000 without it).
    expect(emitted).toEqual([
      [0, false],
      [20_000, true],
    ]);
    elector.stop();
  });

  it('a record noticed earlier than the one held is not taken: a watch that lags does not restart the wait', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.change({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    const old = structuredClone(api.lease!);
    elector.start();
    await scheduler.advanceTo(5_000);
    api.change({ renewTime: '2000-01-01T00:00:00.000000Z' }); // seen by the read at 6 000
    await scheduler.advanceTo(6_500);
    elector.notice(old, 0); // the first record, seen at 0 by a watch that lags
    await scheduler.advanceTo(20_999);
    expect(emitted).toEqual([[0, false]]);
    await scheduler.advanceTo(22_000);
    expect(emitted.at(-1)).toEqual([21_000, true]);
    elector.stop();
  });

  it('a leader ignores what a watch noticed: its own writes are the record', async () => {
    const { scheduler, api, elector } = setup();
    elector.start();
    await scheduler.advanceTo(1);
    const before = structuredClone(api.lease!);
    await scheduler.advanceTo(2_000); // renewed on the version it holds
    elector.notice(before, 2_000); // an older record (a watch behind our renewal)
    await scheduler.advanceTo(6_000);
    // Every renewal was written on the version of the last one: no 409.
    expect(api.writes.map((w) => w.at)).toEqual([0, 2_000, 4_000, 6_000]);
    expect(api.conflicts).toBe(0);
    elector.stop();
  });

  it('a release a watch noticed is taken at once, not at the next try a retry period later', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.change({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    elector.start(); // reads at 0, 2 000, 4 000, ...
    await scheduler.advanceTo(2_500);
    api.change({ holderIdentity: '' }); // the holder stopped gracefully
    elector.notice(structuredClone(api.lease!), 2_500);
    await scheduler.advanceTo(2_500);
    expect(emitted).toEqual([
      [0, false],
      [2_500, true],
    ]);
    // Its tries go on a retry period apart from there, one at a time.
    await scheduler.advanceTo(6_500);
    expect(api.writes.map((w) => w.at)).toEqual([2_500, 4_500, 6_500]);
    elector.stop();
  });

  it('a release noticed while a try reads the lease brings the next try forward to now', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.latencyMs = 100;
    api.change({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    elector.start(); // the read at 2 000 answers at 2 100 with the record before the release
    await scheduler.advanceTo(2_050);
    api.change({ holderIdentity: '' });
    elector.notice(structuredClone(api.lease!), 2_050);
    await scheduler.advanceTo(2_300);
    // The next read at 2 100, its write answered at 2 300 (at 4 100 without the notice).
    expect(emitted).toEqual([
      [0, false],
      [2_300, true],
    ]);
    elector.stop();
  });

  it('a record noticed before start() makes no try of its own: start() makes the first', async () => {
    const { scheduler, api, elector } = setup();
    api.change({ holderIdentity: '' });
    elector.notice(structuredClone(api.lease!), 0);
    await scheduler.advanceTo(1_000);
    expect(api.writes).toEqual([]);
    elector.start();
    await scheduler.advanceTo(3_000);
    expect(api.writes.map((w) => w.at)).toEqual([1_000, 3_000]);
    expect(api.conflicts).toBe(0);
    elector.stop();
  });

  it('honours a longer lease duration written by the holder', async () => {
    const { scheduler, api, elector, emitted } = setup();
    api.change({ holderIdentity: 'other', leaseDurationSeconds: 40 });
    elector.start();
    await scheduler.advanceTo(39_999);
    expect(emitted).toEqual([[0, false]]);
    await scheduler.advanceTo(41_000);
    expect(emitted.at(-1)).toEqual([40_000, true]);
    elector.stop();
  });

  it('a 409 on a renewal reads the lease again at once and renews on the new version', async () => {
    const { scheduler, api, elector, emitted } = setup();
    elector.start();
    await scheduler.advanceTo(1_000);
    api.change({ holderIdentity: 'me' }); // someone else moved the version; we still hold it
    await scheduler.advanceTo(2_000);
    expect(api.lease?.spec?.holderIdentity).toBe('me');
    expect(api.writes.map((w) => w.at)).toEqual([0, 2_000]);
    expect(emitted).toEqual([
      [0, false],
      [0, true],
    ]);
    elector.stop();
  });

  it('stop releases the lease: holder cleared, on the version it last saw', async () => {
    const { scheduler, api, elector } = setup();
    elector.start();
    await scheduler.advanceTo(3_000);
    elector.stop();
    await scheduler.advanceTo(3_001);
    expect(api.lease?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    // A standby does not wait for the lease to expire.
    const standby = setup('next');
    standby.api.lease = api.lease;
    standby.elector.start();
    await standby.scheduler.advanceTo(1);
    expect(standby.emitted).toEqual([
      [0, false],
      [0, true],
    ]);
    standby.elector.stop();
  });
});
