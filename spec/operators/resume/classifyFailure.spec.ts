import { describe, expect, it } from '@jest/globals';
import { classifyFailure } from '../../../src/operators/resume/classifyFailure.js';
import { watchError } from '../../../src/testing/marbles/builders.js';

describe('classifyFailure', () => {
  it.each([
    [410, 'expired'],
    [401, 'unauthorized'],
    [400, 'refused'],
    [403, 'refused'],
    [404, 'refused'],
    [405, 'refused'],
    [409, 'refused'],
    [422, 'refused'],
    [408, 'transient'],
    [429, 'transient'],
    [0, 'transient'],
    [500, 'transient'],
    [302, 'refused'],
    [307, 'refused'],
  ])('%i is %s', (code, kind) => {
    expect(classifyFailure(watchError(code))).toBe(kind);
  });

  it('goes by errorType first', () => {
    expect(classifyFailure(watchError(200, 'bad line', { errorType: 'PARSE_ERROR' }))).toBe(
      'transient',
    );
    expect(classifyFailure(watchError(0, 'expired', { errorType: 'GONE' }))).toBe('expired');
  });
});
