/**
 * matchesLabelSelector's two forms mean the same (issue 40): a selector object and the string
 * kube prints for it (apimachinery's FormatLabelSelector: `k=v`, `k in (a,b)`, `k notin (a)`,
 * `k`, `!k`) select the same labels, and both agree with the requirements read one by one as
 * the API documents them.
 */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { matchesLabelSelector } from '../../src/objects/matchesLabelSelector.js';
import type { LabelSelector } from '../../src/objects/matchesLabelSelector.js';
import { checkProperty } from './settings.js';

// Few keys and values, so that the labels drawn often hold what a selector asks for.
const key = fc.constantFrom('app', 'tier', 'example.com/team', 'constructor', 'a-b.c');
const value = fc.constantFrom('web', 'api', 'front', 'x.y', '1');

type Expression = NonNullable<LabelSelector['matchExpressions']>[number];
const expression: fc.Arbitrary<Expression> = fc.oneof(
  fc.record({
    key,
    operator: fc.constantFrom('In', 'NotIn'),
    values: fc.uniqueArray(value, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ key, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
);

const selector: fc.Arbitrary<LabelSelector> = fc.record(
  {
    matchLabels: fc.dictionary(key, fc.oneof(value, fc.constant('')), { maxKeys: 3 }),
    matchExpressions: fc.array(expression, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const labels = fc.dictionary(key, fc.oneof(value, fc.constant('')), { maxKeys: 5 });

/** The string form of a selector object, as kube formats it. */
function format(s: LabelSelector): string {
  const parts = Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const { key: k, operator, values = [] } of s.matchExpressions ?? []) {
    if (operator === 'In') parts.push(`${k} in (${values.join(',')})`);
    else if (operator === 'NotIn') parts.push(`${k} notin (${values.join(',')})`);
    else if (operator === 'Exists') parts.push(k);
    else parts.push(`!${k}`);
  }
  return parts.join(',');
}

/** The documented meaning, requirement by requirement (all must hold). */
function expected(s: LabelSelector, l: Record<string, string>): boolean {
  const has = (k: string) => Object.prototype.hasOwnProperty.call(l, k);
  return (
    Object.entries(s.matchLabels ?? {}).every(([k, v]) => has(k) && l[k] === v) &&
    (s.matchExpressions ?? []).every(({ key: k, operator, values = [] }) => {
      if (operator === 'In') return has(k) && values.includes(l[k]);
      if (operator === 'NotIn') return !has(k) || !values.includes(l[k]);
      return operator === 'Exists' ? has(k) : !has(k);
    })
  );
}

describe('matchesLabelSelector properties', () => {
  it('a selector object and its string select the same labels, as documented', async () => {
    await checkProperty(
      'matchesLabelSelector: object form == string form == requirements one by one',
      fc.property(selector, labels, (s, l) => {
        const byObject = matchesLabelSelector(s, l);
        const byString = matchesLabelSelector(format(s), l);
        return byObject === byString && byObject === expected(s, l);
      }),
      2000,
    );
  });
});
