import { describe, expect, it } from '@jest/globals';
import {
  memberStep,
  peekMemberStep,
  sharderStep,
  type MemberKeys,
  type SharderView,
} from '../../../src/controller/sharding/handshake.js';

const A = 'shard.kube-rx.io/web';
const D = 'drain.shard.kube-rx.io/web';
const names = { assignLabel: A, drainLabel: D };

function view(desired: string, live: string[], claimed: string[] = []): SharderView {
  return {
    ...names,
    desired,
    live: (m) => live.includes(m),
    claimed: (m) => claimed.includes(m),
  };
}

describe('sharderStep: the sharder half of the drain handshake', () => {
  it('assigns an unassigned object, or one whose label can never be a member', () => {
    expect(sharderStep({}, view('m1', ['m1']))).toEqual({ [A]: 'm1' });
    expect(sharderStep({ [A]: 'Not_A_Member' }, view('m1', ['m1']))).toEqual({ [A]: 'm1' });
    // A drain mark left without an assignment goes with the new assignment.
    expect(sharderStep({ [D]: 'true' }, view('m1', ['m1']))).toEqual({ [A]: 'm1', [D]: null });
  });

  it('leaves an object on its desired live member alone', () => {
    expect(sharderStep({ [A]: 'm1' }, view('m1', ['m1', 'm2']))).toBeUndefined();
  });

  it('moves from a live member only by marking it draining, then waits for it', () => {
    expect(sharderStep({ [A]: 'm1' }, view('m2', ['m1', 'm2']))).toEqual({ [D]: 'true' });
    expect(sharderStep({ [A]: 'm1', [D]: 'true' }, view('m2', ['m1', 'm2']))).toBeUndefined();
    // Released by m1 (both labels cleared): unassigned, so assigned to m2.
    expect(sharderStep({}, view('m2', ['m1', 'm2']))).toEqual({ [A]: 'm2' });
  });

  it('moves a dead member’s objects directly, but only once its Lease is claimed', () => {
    expect(sharderStep({ [A]: 'm3' }, view('m1', ['m1']))).toBeUndefined();
    expect(sharderStep({ [A]: 'm3' }, view('m1', ['m1'], ['m3']))).toEqual({ [A]: 'm1' });
    // Dead while draining: the drain mark goes too.
    expect(sharderStep({ [A]: 'm3', [D]: 'true' }, view('m1', ['m1'], ['m3']))).toEqual({
      [A]: 'm1',
      [D]: null,
    });
  });
});

describe('memberStep: the member half', () => {
  const keys = (): MemberKeys => ({ released: new Map(), seen: new Set() });
  const object = (labels: Record<string, string>, resourceVersion = '1') => ({
    metadata: { labels, resourceVersion },
  });

  it('runs its own objects, skips others and those it never had', () => {
    const k = keys();
    expect(memberStep(object({ [A]: 'm1' }), 'app/a', k, 'm1', names)).toBe('run');
    expect(memberStep(object({ [A]: 'm2' }), 'app/b', k, 'm1', names)).toBe('skip');
    expect(memberStep(undefined, 'app/b', k, 'm1', names)).toBe('skip');
    // Deleted while ours: run once with undefined (clean up).
    expect(memberStep(undefined, 'app/a', k, 'm1', names)).toBe('run');
    expect(memberStep(undefined, 'app/a', k, 'm1', names)).toBe('skip');
  });

  it('releases a draining key, then never runs the version it released', () => {
    const k = keys();
    expect(memberStep(object({ [A]: 'm1' }), 'app/a', k, 'm1', names)).toBe('run');
    expect(memberStep(object({ [A]: 'm1', [D]: 'true' }, '2'), 'app/a', k, 'm1', names)).toBe(
      'release',
    );
    // What shardedController records after the release succeeded.
    k.released.set('app/a', '2');
    // The store has not seen it leave: the same version again starts nothing.
    expect(memberStep(object({ [A]: 'm1', [D]: 'true' }, '2'), 'app/a', k, 'm1', names)).toBe(
      'skip',
    );
    // It left the store: not a deletion of ours.
    expect(memberStep(undefined, 'app/a', k, 'm1', names)).toBe('skip');
    // Assigned back later (a newer version): ours again.
    expect(memberStep(object({ [A]: 'm1' }, '5'), 'app/a', k, 'm1', names)).toBe('run');
  });

  it('a release whose answer was lost: tried again, and its leaving is never a deletion', () => {
    const k = keys();
    expect(memberStep(object({ [A]: 'm1' }), 'app/a', k, 'm1', names)).toBe('run');
    expect(memberStep(object({ [A]: 'm1', [D]: 'true' }, '2'), 'app/a', k, 'm1', names)).toBe(
      'release',
    );
    // The PATCH failed (nothing recorded): the server may have applied it or not. The store
    // still shows the draining version: release again (a 409 if the first one was applied).
    expect(memberStep(object({ [A]: 'm1', [D]: 'true' }, '2'), 'app/a', k, 'm1', names)).toBe(
      'release',
    );
    // It left the store: the next member may be running it; not a deletion to run here.
    expect(memberStep(undefined, 'app/a', k, 'm1', names)).toBe('skip');
  });

  it('inherited from a claim: releases the version its first list found, runs any later one', () => {
    const k = keys();
    // An incarnation that took its Lease over from a sharder's claim: a move the claim sent on
    // version 4 may still land, so version 4 is handed back, never run.
    k.inherited = new Map([['app/a', '4']]);
    expect(peekMemberStep(object({ [A]: 'm1' }, '4'), 'app/a', k, 'm1', names)).toBe('release');
    expect(memberStep(object({ [A]: 'm1' }, '4'), 'app/a', k, 'm1', names)).toBe('release');
    k.released.set('app/a', '4');
    // Released: the same version starts nothing; it left the store: not a deletion of ours.
    expect(memberStep(object({ [A]: 'm1' }, '4'), 'app/a', k, 'm1', names)).toBe('skip');
    expect(memberStep(undefined, 'app/a', k, 'm1', names)).toBe('skip');
    // Assigned again (a later version: a move sent on 4 now meets a conflict): ours.
    expect(memberStep(object({ [A]: 'm1' }, '6'), 'app/a', k, 'm1', names)).toBe('run');
    // A key the list did not have is not inherited.
    expect(memberStep(object({ [A]: 'm1' }, '4'), 'app/b', k, 'm1', names)).toBe('run');
  });

  it('peekMemberStep answers as memberStep would, changing nothing', () => {
    const k = keys();
    const steps: Array<[ReturnType<typeof object> | undefined, string]> = [
      [object({ [A]: 'm1' }), 'run'],
      [object({ [A]: 'm2' }), 'skip'],
      [object({ [A]: 'm1', [D]: 'true' }, '2'), 'release'],
      [undefined, 'skip'],
      [object({ [A]: 'm1' }, '3'), 'run'],
      [undefined, 'run'],
    ];
    for (const [o, step] of steps) {
      const before = JSON.stringify([[...k.released], [...k.seen]]);
      expect(peekMemberStep(o, 'app/a', k, 'm1', names)).toBe(step);
      expect(JSON.stringify([[...k.released], [...k.seen]])).toBe(before);
      expect(memberStep(o, 'app/a', k, 'm1', names)).toBe(step);
    }
  });
});
