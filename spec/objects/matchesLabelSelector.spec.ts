import { describe, expect, it } from '@jest/globals';
import { LabelSelectorError } from '../../src/objects/LabelSelectorError.js';
import { matchesLabelSelector } from '../../src/objects/matchesLabelSelector.js';
import type { LabelSelector } from '../../src/objects/matchesLabelSelector.js';
import {
  matchesLabelSelector as publicMatches,
  LabelSelectorError as PublicError,
} from '../../src/index.js';

const labels = { app: 'web', tier: 'front', version: '3' };

describe('matchesLabelSelector', () => {
  it('is the public one', () => {
    expect(publicMatches).toBe(matchesLabelSelector);
    expect(PublicError).toBe(LabelSelectorError);
  });

  // [selector string, the same selector as an object (when it has one), labels, selected]
  const table: [string, LabelSelector | undefined, Record<string, string>, boolean][] = [
    ['', {}, labels, true],
    ['', {}, {}, true],
    ['app=web', { matchLabels: { app: 'web' } }, labels, true],
    ['app==web', { matchLabels: { app: 'web' } }, labels, true],
    ['app=api', { matchLabels: { app: 'api' } }, labels, false],
    ['app=web', { matchLabels: { app: 'web' } }, {}, false],
    ['app!=api', undefined, labels, true],
    ['app!=web', undefined, labels, false],
    ['zone!=a', undefined, labels, true], // != holds without the key
    [
      'tier in (front,edge)',
      { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'edge'] }] },
      labels,
      true,
    ],
    [
      'tier in (back)',
      { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      labels,
      false,
    ],
    [
      'zone in (a)',
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      labels,
      false,
    ],
    [
      'tier notin (front)',
      { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] },
      labels,
      false,
    ],
    [
      'zone notin (a)',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      labels,
      true,
    ],
    ['app', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels, true],
    ['zone', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, labels, false],
    ['!zone', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, labels, true],
    ['!app', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, labels, false],
    // Own keys only: 'constructor' is in every object, on no labels that lack it.
    [
      'constructor',
      { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] },
      labels,
      false,
    ],
    ['version>2', undefined, labels, true],
    ['version<3', undefined, labels, false],
    ['app>2', undefined, labels, false], // not an integer: never greater
    [
      'app=web, tier in (front), !canary',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front'] },
          { key: 'canary', operator: 'DoesNotExist' },
        ],
      },
      labels,
      true,
    ],
    [
      'app=web,canary',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'canary', operator: 'Exists' }],
      },
      labels,
      false,
    ],
    [
      'example.com/team=a',
      { matchLabels: { 'example.com/team': 'a' } },
      { 'example.com/team': 'a' },
      true,
    ],
  ];

  it.each(table)('%j selects %#', (text, object, given, selected) => {
    expect(matchesLabelSelector(text, given)).toBe(selected);
    if (object !== undefined) expect(matchesLabelSelector(object, given)).toBe(selected);
  });

  it('reads no selector as apimachinery does: nothing selected; missing labels as none', () => {
    expect(matchesLabelSelector(undefined, labels)).toBe(false);
    expect(matchesLabelSelector(null, labels)).toBe(false);
    expect(matchesLabelSelector({ matchLabels: {}, matchExpressions: [] }, labels)).toBe(true);
    expect(matchesLabelSelector('!app', undefined)).toBe(true);
    expect(matchesLabelSelector({ matchLabels: { app: 'web' } }, null)).toBe(false);
  });

  it.each([
    ['app in web', "found 'web', expected: '('"],
    ['app in ()', "for 'in', 'notin' operators, values set can't be empty"],
    ['app=web,', "found ',', expected: ',' or 'end of string'"],
    ['app=we b', "found 'b', expected: ',' or 'end of string'"],
    ['-app=web', 'invalid label key "-app"'],
    ['app=-web', 'invalid label value: "-web"'],
    ['app>x', '"x" is not an integer'],
  ])('refuses the string %j with kube-apiserver’s message', (text, message) => {
    expect(() => matchesLabelSelector(text, labels)).toThrow(LabelSelectorError);
    expect(() => matchesLabelSelector(text, labels)).toThrow(message);
  });

  it.each<[unknown, string]>([
    [
      { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
      '"Equals" is not a valid label selector operator',
    ],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, "values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }, "values set can't be empty"],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values set must be empty',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'constructor' }] },
      'is not a valid label selector operator',
    ],
    [{ matchLabels: { 'a b': 'x' } }, 'invalid label key "a b"'],
    [{ matchLabels: { a: 'x y' } }, 'invalid label value: "x y"'],
    [{ matchLabels: { a: 1 } }, 'must be a string'],
    [42, 'selector must be a string or an object, not a number'],
    [['app=web'], 'not an array'],
  ])('refuses the object %j', (selector, message) => {
    const attempt = () => matchesLabelSelector(selector as LabelSelector, labels);
    expect(attempt).toThrow(LabelSelectorError);
    expect(attempt).toThrow(TypeError);
    expect(attempt).toThrow(message);
  });
});
