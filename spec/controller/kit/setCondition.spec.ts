import { describe, expect, it } from '@jest/globals';
import { findCondition, isConditionTrue } from '../../../src/controller/kit/findCondition.js';
import { setCondition } from '../../../src/controller/kit/setCondition.js';

const T0 = new Date('2026-12-01T10:00:00.750Z');
const T1 = new Date('2026-12-01T11:30:00Z');

describe('setCondition', () => {
  it('adds a new type with its transition time now, in whole seconds (RFC 3339)', () => {
    const list = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Creating' },
      T0,
    );
    expect(list).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Creating',
        message: '',
        lastTransitionTime: '2026-12-01T10:00:00Z',
      },
    ]);
  });

  it('keeps lastTransitionTime when only the reason, message or generation change', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Creating' }, T0);
    const second = setCondition(
      first,
      {
        type: 'Ready',
        status: 'False',
        reason: 'Waiting',
        message: 'quota',
        observedGeneration: 2,
      },
      T1,
    );
    expect(second).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Waiting',
        message: 'quota',
        observedGeneration: 2,
        lastTransitionTime: '2026-12-01T10:00:00Z',
      },
    ]);
    expect(first[0].reason).toBe('Creating'); // the input list is never modified
  });

  it('moves lastTransitionTime when the status changes, and keeps one entry per type', () => {
    const list = setCondition(
      setCondition([], { type: 'Ready', status: 'False', reason: 'Creating' }, T0),
      { type: 'Ready', status: 'True', reason: 'Provisioned' },
      T1,
    );
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'True', lastTransitionTime: '2026-12-01T11:30:00Z' });
  });

  it('returns the same list when nothing changed, so a status write can be skipped', () => {
    const update = { type: 'Ready', status: 'True', reason: 'Provisioned' } as const;
    const list = setCondition([], update, T0);
    expect(setCondition(list, update, T1)).toBe(list);
  });

  it('leaves the other types in place and gives them the wire shape', () => {
    const list = setCondition(
      [
        { type: 'Degraded', status: 'False', reason: 'AsExpected', lastTransitionTime: T0 },
        {
          type: 'Ready',
          status: 'False',
          reason: 'Creating',
          message: '',
          lastTransitionTime: 'x',
        },
      ],
      { type: 'Ready', status: 'True', reason: 'Provisioned' },
      T1,
    );
    expect(list.map((c) => c.type)).toEqual(['Degraded', 'Ready']);
    expect(list[0]).toMatchObject({ message: '', lastTransitionTime: '2026-12-01T10:00:00Z' });
  });

  it.each([
    [{ status: 'True', reason: 'Ok' }, /invalid type/],
    [{ type: '', status: 'True', reason: 'Ok' }, /invalid type/],
    [{ type: 'Ready', reason: 'Ok' }, /invalid status/],
    [{ type: 'Ready', status: 'true', reason: 'Ok' }, /invalid status/],
    [{ type: 'Ready', status: 'True' }, /invalid reason/],
    [{ type: 'Ready', status: 'True', reason: 'has spaces' }, /invalid reason/],
    [{ type: 'Ready', status: 'True', reason: 'Ok', observedGeneration: -1 }, /observedGeneration/],
    [null, /must be an object/],
  ])('refuses %j with a TypeError that names what is wrong', (update, message) => {
    expect(() => setCondition([], update as never, T0)).toThrow(TypeError);
    expect(() => setCondition([], update as never, T0)).toThrow(message);
  });
});

describe('findCondition and isConditionTrue', () => {
  const list = setCondition(
    setCondition([], { type: 'Ready', status: 'True', reason: 'Provisioned' }, T0),
    { type: 'Degraded', status: 'Unknown', reason: 'Checking' },
    T0,
  );

  it('find the entry of a type, and read True only as True', () => {
    expect(findCondition(list, 'Degraded')?.reason).toBe('Checking');
    expect(findCondition(list, 'Missing')).toBeUndefined();
    expect(findCondition(undefined, 'Ready')).toBeUndefined();
    expect(isConditionTrue(list, 'Ready')).toBe(true);
    expect(isConditionTrue(list, 'Degraded')).toBe(false);
    expect(isConditionTrue(list, 'Missing')).toBe(false);
    expect(isConditionTrue(undefined, 'Ready')).toBe(false);
  });
});
