import { LabelSelectorError } from './LabelSelectorError.js';
import { isValidSegment } from './resourcePath.js';

/** The operators of a label requirement (`gt`/`lt`: kube's `a>1`, `a<1`). */
export type LabelOp = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

/** One requirement of a label selector, as parsed; a selector is all of them (ANDed). */
export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/**
 * Throws unless `key` is a label key: an optional DNS-1123 subdomain prefix and `/`, then a name
 * of at most 63 characters (alphanumerics, `-`, `_`, `.`, alphanumeric at both ends).
 */
export function validateLabelKey(key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  // A key prefix follows the rules of an API group: a DNS-1123 subdomain.
  const prefixOk = prefix === undefined || isValidSegment('group', prefix);
  if (!prefixOk || name.length > 63 || !NAME.test(name)) {
    throw new LabelSelectorError(`unable to parse requirement: invalid label key "${key}"`);
  }
}

/** Throws unless `value` is a label value: empty, or a name of at most 63 characters. */
export function validateLabelValue(value: string): void {
  if (value !== '' && (value.length > 63 || !NAME.test(value))) {
    throw new LabelSelectorError(`unable to parse requirement: invalid label value: "${value}"`);
  }
}

/** Splits a label selector into tokens: operators, parentheses, commas and words. */
function tokenize(selector: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < selector.length) {
    const c = selector[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '=' || c === '!') {
      const two = selector.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push(two);
        i += 2;
      } else {
        tokens.push(c);
        i++;
      }
    } else if ('(),<>'.includes(c)) {
      tokens.push(c);
      i++;
    } else {
      let j = i;
      while (j < selector.length && !/[\s=!(),<>]/.test(selector[j])) j++;
      tokens.push(selector.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

const SPECIAL = new Set(['=', '==', '!=', '!', '(', ')', ',', '<', '>']);

/**
 * Parses a label selector string as kube's `labels.Parse` does: comma-joined requirements
 * `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`. The empty string
 * (or only blanks) is no requirement at all: it selects everything. Throws a
 * {@link LabelSelectorError} with kube-apiserver's message for anything else.
 *
 * @example
 * parseLabelSelector('app=web,tier in (front)');
 * // [{ key: 'app', op: '=', values: ['web'] }, { key: 'tier', op: 'in', values: ['front'] }]
 */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  const tokens = tokenize(selector);
  const requirements: LabelRequirement[] = [];
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const word = (what: string): string => {
    const t = tokens[pos];
    if (t === undefined || SPECIAL.has(t)) {
      throw new LabelSelectorError(
        `unable to parse requirement: expected ${what}, found ${t ?? 'end'}`,
      );
    }
    pos++;
    return t;
  };
  while (pos < tokens.length) {
    if (peek() === '!') {
      pos++;
      const key = word('a key');
      validateLabelKey(key);
      requirements.push({ key, op: '!exists', values: [] });
    } else {
      const key = word('a key');
      validateLabelKey(key);
      const op = peek();
      if (op === undefined || op === ',') {
        requirements.push({ key, op: 'exists', values: [] });
      } else if (op === '=' || op === '==' || op === '!=') {
        pos++;
        const next = peek();
        const value = next === undefined || next === ',' ? '' : word('a value');
        validateLabelValue(value);
        requirements.push({ key, op: op === '!=' ? '!=' : '=', values: [value] });
      } else if (op === '<' || op === '>') {
        pos++;
        const value = word('an integer');
        if (!/^-?\d+$/.test(value)) {
          throw new LabelSelectorError(`unable to parse requirement: "${value}" is not an integer`);
        }
        requirements.push({ key, op: op === '<' ? 'lt' : 'gt', values: [value] });
      } else if (op === 'in' || op === 'notin') {
        pos++;
        requirements.push({ key, op, values: parseSet() });
      } else {
        throw new LabelSelectorError(
          `unable to parse requirement: unexpected "${op}" after "${key}"`,
        );
      }
    }
    if (pos < tokens.length) {
      if (tokens[pos] !== ',' || pos === tokens.length - 1) {
        throw new LabelSelectorError(`found '${tokens[pos]}', expected: ',' or 'end of string'`);
      }
      pos++;
    }
  }
  return requirements;

  function parseSet(): string[] {
    if (tokens[pos] !== '(')
      throw new LabelSelectorError(`found '${tokens[pos] ?? 'end'}', expected: '('`);
    pos++;
    if (tokens[pos] === ')') {
      throw new LabelSelectorError(`for 'in', 'notin' operators, values set can't be empty`);
    }
    const values: string[] = [];
    for (;;) {
      const t = tokens[pos];
      const value = t === ',' || t === ')' ? '' : word('a value');
      validateLabelValue(value);
      values.push(value);
      const sep = tokens[pos];
      pos++;
      if (sep === ')') return values;
      if (sep !== ',')
        throw new LabelSelectorError(`found '${sep ?? 'end'}', expected: ',' or ')'`);
    }
  }
}

/**
 * Whether `labels` meet one requirement, as kube's `Requirement.Matches`: `!=` and `notin` hold
 * for an object without the key; `gt`/`lt` need the label to be an integer. Labels are own keys
 * only (`constructor` is in every object, but on no object that does not carry it).
 */
export function meetsRequirement(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.op) {
    case 'exists':
      return has;
    case '!exists':
      return !has;
    case '=':
    case 'in':
      return has && r.values.includes(value);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value);
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value)) return false;
      const n = Number(value);
      return r.op === 'gt' ? n > Number(r.values[0]) : n < Number(r.values[0]);
    }
  }
}
