import { describe, expect, it } from '@jest/globals';
import { peekContinueToken } from '../../../src/client/request/peekContinueToken.js';

describe('peekContinueToken', () => {
  const items = ',"items":[{"metadata":{"name":"a","continue":"not-this"}}]}';

  it.each([
    [
      'the API server layout',
      '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"eyJ2Ijo"}',
    ],
    [
      'apiVersion first',
      '{"apiVersion":"v1","kind":"PodList","metadata":{"continue":"eyJ2Ijo","remainingItemCount":3}',
    ],
    ['metadata first, with spaces', ' { "metadata" : { "continue" : "eyJ2Ijo" }'],
  ])('reads the token of %s', (_, head) => {
    expect(peekContinueToken(head + items)).toBe('eyJ2Ijo');
  });

  it.each([
    [
      'no token (the last page)',
      '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"}',
    ],
    ['an empty token', '{"kind":"PodList","metadata":{"continue":""}'],
    ['a token with an escape', '{"kind":"PodList","metadata":{"continue":"a\\"b"}'],
    ['items before metadata', '{"kind":"PodList","items":[],"metadata":{"continue":"x"}'],
    [
      'another field before metadata',
      '{"kind":"PodList","extra":{"continue":"x"},"metadata":{"continue":"y"}',
    ],
    ['a nested object in the list metadata', '{"metadata":{"x":{"continue":"x"},"continue":"y"}'],
  ])('gives nothing for %s: the parsed page decides', (_, head) => {
    expect(peekContinueToken(head + items)).toBeUndefined();
  });

  it('looks only at the head of a page', () => {
    const far = `{"kind":"PodList",${' '.repeat(5000)}"metadata":{"continue":"x"}}`;
    expect(peekContinueToken(far)).toBeUndefined();
    expect(peekContinueToken('')).toBeUndefined();
    expect(peekContinueToken('not json')).toBeUndefined();
  });
});
