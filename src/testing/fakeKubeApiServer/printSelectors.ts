import type { LabelRequirement } from '../../objects/parseLabelSelector.js';
import type { FieldTerm } from './selectors.js';

/**
 * A label selector's text for parsed requirements, in the canonical form kube-apiserver prints
 * (`a=b`, `a!=b`, `a in (x,y)`, `!a`, `a>1`): parsing it gives the same requirements back.
 *
 * @example
 * printLabelSelector([{ key: 'app', op: '=', values: ['web'] }]); // 'app=web'
 */
export function printLabelSelector(requirements: readonly LabelRequirement[]): string {
  return requirements
    .map(({ key, op, values }) => {
      switch (op) {
        case 'exists':
          return key;
        case '!exists':
          return `!${key}`;
        case '=':
        case '!=':
          return `${key}${op}${values[0]}`;
        case 'in':
        case 'notin':
          return `${key} ${op} (${values.join(',')})`;
        case 'gt':
          return `${key}>${values[0]}`;
        case 'lt':
          return `${key}<${values[0]}`;
      }
    })
    .join(',');
}

/**
 * A field selector's text for parsed terms, values escaped (`\,` `\=` `\\`): parsing it gives
 * the same terms back.
 *
 * @example
 * printFieldSelector([{ field: 'metadata.name', value: 'a,b', negate: false }]); // 'metadata.name=a\\,b'
 */
export function printFieldSelector(terms: readonly FieldTerm[]): string {
  return terms
    .map(({ field, value, negate }) => {
      const escaped = value.replace(/[\\,=]/g, (c) => `\\${c}`);
      return `${field}${negate ? '!=' : '='}${escaped}`;
    })
    .join(',');
}
