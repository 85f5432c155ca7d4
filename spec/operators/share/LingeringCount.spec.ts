import { describe, expect, it } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import { LingeringCount } from '../../../src/operators/share/LingeringCount.js';

// The one reference count with linger of createInformers, on virtual time.
function counted(linger: number) {
  const scheduler = new VirtualTimeScheduler();
  const idleAt: number[] = [];
  const count = new LingeringCount(linger, scheduler, () => idleAt.push(scheduler.now()));
  /** Runs virtual time up to `to`. */
  const until = (to: number) => {
    scheduler.schedule(() => undefined, to - scheduler.now());
    scheduler.maxFrames = to;
    scheduler.flush();
  };
  return { scheduler, idleAt, count, until };
}

describe('LingeringCount', () => {
  it('is idle `linger` after the last holder left, once', () => {
    const { count, idleAt, until } = counted(100);
    count.hold();
    count.hold();
    until(10);
    count.release();
    until(20);
    count.release();
    until(500);
    expect(idleAt).toEqual([120]);
  });

  it('is not idle when a holder comes back within the linger', () => {
    const { count, idleAt, until } = counted(100);
    count.hold();
    count.release();
    until(50);
    count.hold();
    until(400);
    expect(idleAt).toEqual([]);
    count.release();
    until(600);
    expect(idleAt).toEqual([500]);
  });

  it('with linger 0, is idle at once; a holder that lingered itself does not add its linger', () => {
    const zero = counted(0);
    zero.count.hold();
    zero.count.release();
    expect(zero.idleAt).toEqual([0]);
    const { count, idleAt, until } = counted(100);
    count.hold();
    until(150);
    // Its users left at 50: it has lingered to 150 already.
    count.release(50);
    expect(idleAt).toEqual([150]);
  });

  it('does nothing once stopped', () => {
    const { count, idleAt, until } = counted(10);
    count.hold();
    count.release();
    count.stop();
    until(100);
    expect(idleAt).toEqual([]);
  });
});
