import { describe, expect, it } from '@jest/globals';
import { MemberFence } from '../../../src/controller/sharding/MemberFence.js';

describe('MemberFence', () => {
  it('holds until the renew deadline after the last successful write was sent, read on its clock', () => {
    let now = 0;
    const fence = new MemberFence(() => now, 400);
    expect(fence.holds()).toBe(false); // nothing written yet
    fence.renewed(0);
    now = 399;
    expect(fence.holds()).toBe(true);
    now = 400;
    expect(fence.holds()).toBe(false); // whatever timer should have said so is late
    // A renewal sent in time but answered late extends it from when it was sent.
    fence.renewed(100);
    expect(fence.holds()).toBe(true);
    // An older write answered last does not shorten it.
    fence.renewed(50);
    now = 499;
    expect(fence.holds()).toBe(true);
    // A new incarnation starts with nothing.
    fence.reset();
    expect(fence.holds()).toBe(false);
  });
});
