/**
 * Properties of the test server's label and field selectors (issue 39): printing parsed
 * requirements and parsing them again gives them back; parse, print, parse is stable for any
 * selector that parses; and no string, however hostile, makes them throw anything but the
 * SelectorError (LabelSelectorError for labels) the server answers 400 with.
 */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import {
  fieldMatcher,
  labelMatcher,
  parseFieldSelector,
  SelectorError,
} from '../../src/testing/fakeKubeApiServer/selectors.js';
import { LabelSelectorError } from '../../src/objects/LabelSelectorError.js';
import { parseLabelSelector, type LabelRequirement } from '../../src/objects/parseLabelSelector.js';
import {
  printFieldSelector,
  printLabelSelector,
} from '../../src/testing/fakeKubeApiServer/printSelectors.js';
import { checkProperty } from './settings.js';

const name = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,8}[A-Za-z0-9])?$/);
const key = fc
  .tuple(fc.option(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?(\.[a-z]{1,4})?$/)), name)
  .map(([prefix, n]) => (prefix === null ? n : `${prefix}/${n}`));
const value = fc.oneof(name, fc.constant(''));

const requirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  key.map((k) => ({ key: k, op: 'exists' as const, values: [] })),
  key.map((k) => ({ key: k, op: '!exists' as const, values: [] })),
  fc
    .tuple(key, fc.constantFrom('=' as const, '!=' as const), value)
    .map(([k, op, v]) => ({ key: k, op, values: [v] })),
  fc
    .tuple(
      key,
      fc.constantFrom('in' as const, 'notin' as const),
      // A set of one empty value has no text (`a in ()` is refused): sets hold names.
      fc.array(name, { minLength: 1, maxLength: 4 }),
    )
    .map(([k, op, vs]) => ({ key: k, op, values: vs })),
  fc
    .tuple(key, fc.constantFrom('gt' as const, 'lt' as const), fc.integer({ min: -999, max: 999 }))
    .map(([k, op, n]) => ({ key: k, op, values: [String(n)] })),
);

/** Selector-like text: the alphabet of the grammar, so that many strings parse. */
const selectorText = fc
  .array(
    fc.constantFrom(
      'a',
      'b',
      'x/y',
      '1',
      '-',
      '.',
      '=',
      '==',
      '!=',
      '!',
      ',',
      '(',
      ')',
      ' ',
      ' in ',
      ' notin ',
      '<',
      '>',
      '\\',
    ),
    {
      maxLength: 16,
    },
  )
  .map((parts) => parts.join(''));

/**
 * Parses, or says it could not (a SelectorError, or a LabelSelectorError for labels); anything
 * else thrown fails the property.
 */
function attempt<T>(parse: () => T): T | 'refused' {
  try {
    return parse();
  } catch (error) {
    if (error instanceof SelectorError || error instanceof LabelSelectorError) return 'refused';
    throw error;
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe('label selector properties', () => {
  it('print then parse gives the requirements back', async () => {
    await checkProperty(
      'label selector: parse(print(r)) equals r',
      fc.property(fc.array(requirement, { minLength: 1, maxLength: 5 }), (requirements) =>
        same(parseLabelSelector(printLabelSelector(requirements)), requirements),
      ),
      500,
    );
  });

  it('parse, print, parse is stable, and anything else is a LabelSelectorError', async () => {
    await checkProperty(
      'label selector: parse-print-parse stable; hostile text only LabelSelectorError',
      fc.property(fc.oneof(selectorText, fc.string({ unit: 'binary', maxLength: 40 })), (text) => {
        const parsed = attempt(() => parseLabelSelector(text));
        attempt(() => labelMatcher(text)?.({ metadata: { labels: { a: '1' } } }));
        if (parsed === 'refused' || parsed.length === 0) return true;
        return same(parseLabelSelector(printLabelSelector(parsed)), parsed);
      }),
      1000,
    );
  });
});

const field = fc.constantFrom(
  'metadata.name',
  'metadata.namespace',
  'spec.nodeName',
  'status.phase',
);

/** Values rich in what the field syntax escapes (`\\`, `,`, `=`) or reads as an operator. */
const fieldValue = fc.string({
  unit: fc.oneof(
    fc.constantFrom('=', ',', '\\', '!', ' ', 'a'),
    fc.string({ unit: 'grapheme', maxLength: 1 }),
  ),
  maxLength: 12,
});

describe('field selector properties', () => {
  it('print then parse gives the terms back, whatever the values hold', async () => {
    await checkProperty(
      'field selector: parse(print(t)) equals t',
      fc.property(
        fc.array(
          fc.record({
            field,
            value: fieldValue,
            negate: fc.boolean(),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (terms) => same(parseFieldSelector(printFieldSelector(terms), 'pods'), terms),
      ),
      500,
    );
  });

  it('parse, print, parse is stable, and anything else is a SelectorError', async () => {
    await checkProperty(
      'field selector: parse-print-parse stable; hostile text only SelectorError',
      fc.property(
        fc.oneof(
          fc
            .array(
              fc.constantFrom(
                'metadata.name',
                'status.phase',
                'nope',
                '=',
                '==',
                '!=',
                ',',
                '\\',
                '\\,',
                'a',
                ' ',
              ),
              { maxLength: 12 },
            )
            .map((p) => p.join('')),
          fc.string({ unit: 'binary', maxLength: 40 }),
        ),
        (text) => {
          const parsed = attempt(() => parseFieldSelector(text, 'pods'));
          attempt(() => fieldMatcher(text, 'pods')?.({ metadata: { name: 'a' } }));
          if (parsed === 'refused') return true;
          return same(parseFieldSelector(printFieldSelector(parsed), 'pods'), parsed);
        },
      ),
      1000,
    );
  });
});
