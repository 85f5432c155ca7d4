import type { KubernetesObject } from '../../types.js';
import { isValidSegment } from '../../objects/resourcePath.js';

/** A selector that cannot be parsed; the server answers 400 BadRequest with its message. */
export class SelectorError extends Error {}

/** Tests an object. */
export type ObjectMatcher = (obj: KubernetesObject) => boolean;

/** The operators of a label requirement. */
export type LabelOp = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';
/** One requirement of a label selector, as parsed. */
export interface Requirement {
  key: string;
  op: LabelOp;
  values: string[];
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function validateKey(key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  // A key prefix follows the rules of an API group: a DNS-1123 subdomain.
  const prefixOk = prefix === undefined || isValidSegment('group', prefix);
  if (!prefixOk || name.length > 63 || !NAME.test(name)) {
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`);
  }
}

function validateValue(value: string): void {
  if (value !== '' && (value.length > 63 || !NAME.test(value))) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}"`);
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
 * Parses a label selector (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`).
 * Throws {@link SelectorError} (the server's 400) for anything else.
 */
export function parseLabelSelector(selector: string): Requirement[] {
  const tokens = tokenize(selector);
  const requirements: Requirement[] = [];
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const word = (what: string): string => {
    const t = tokens[pos];
    if (t === undefined || SPECIAL.has(t)) {
      throw new SelectorError(`unable to parse requirement: expected ${what}, found ${t ?? 'end'}`);
    }
    pos++;
    return t;
  };
  while (pos < tokens.length) {
    if (peek() === '!') {
      pos++;
      const key = word('a key');
      validateKey(key);
      requirements.push({ key, op: '!exists', values: [] });
    } else {
      const key = word('a key');
      validateKey(key);
      const op = peek();
      if (op === undefined || op === ',') {
        requirements.push({ key, op: 'exists', values: [] });
      } else if (op === '=' || op === '==' || op === '!=') {
        pos++;
        const next = peek();
        const value = next === undefined || next === ',' ? '' : word('a value');
        validateValue(value);
        requirements.push({ key, op: op === '!=' ? '!=' : '=', values: [value] });
      } else if (op === '<' || op === '>') {
        pos++;
        const value = word('an integer');
        if (!/^-?\d+$/.test(value)) {
          throw new SelectorError(`unable to parse requirement: "${value}" is not an integer`);
        }
        requirements.push({ key, op: op === '<' ? 'lt' : 'gt', values: [value] });
      } else if (op === 'in' || op === 'notin') {
        pos++;
        requirements.push({ key, op, values: parseSet() });
      } else {
        throw new SelectorError(`unable to parse requirement: unexpected "${op}" after "${key}"`);
      }
    }
    if (pos < tokens.length) {
      if (tokens[pos] !== ',' || pos === tokens.length - 1) {
        throw new SelectorError(`found '${tokens[pos]}', expected: ',' or 'end of string'`);
      }
      pos++;
    }
  }
  return requirements;

  function parseSet(): string[] {
    if (tokens[pos] !== '(')
      throw new SelectorError(`found '${tokens[pos] ?? 'end'}', expected: '('`);
    pos++;
    if (tokens[pos] === ')') {
      throw new SelectorError(`for 'in', 'notin' operators, values set can't be empty`);
    }
    const values: string[] = [];
    for (;;) {
      const t = tokens[pos];
      const value = t === ',' || t === ')' ? '' : word('a value');
      validateValue(value);
      values.push(value);
      const sep = tokens[pos];
      pos++;
      if (sep === ')') return values;
      if (sep !== ',') throw new SelectorError(`found '${sep ?? 'end'}', expected: ',' or ')'`);
    }
  }
}

function matchesRequirement(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
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

/**
 * A matcher for a label selector; `undefined`/empty matches everything.
 * Throws {@link SelectorError} when it cannot be parsed.
 */
export function labelMatcher(selector: string | undefined): ObjectMatcher | undefined {
  if (selector === undefined || selector.trim() === '') return undefined;
  const requirements = parseLabelSelector(selector);
  return (obj) => {
    const labels = (obj.metadata?.labels ?? {}) as Record<string, string>;
    return requirements.every((r) => matchesRequirement(r, labels));
  };
}

const COMMON_FIELDS = ['metadata.name', 'metadata.namespace'];
const FIELDS_BY_PLURAL: Record<string, string[]> = {
  pods: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'type',
  ],
  secrets: ['type'],
  namespaces: ['status.phase'],
  nodes: ['spec.unschedulable'],
  replicasets: ['status.replicas'],
  jobs: ['status.successful'],
};

/** Splits on `sep` not preceded by a backslash escape. */
function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      current += s[i] + s[i + 1];
      i++;
    } else if (s[i] === sep) {
      parts.push(current);
      current = '';
    } else current += s[i];
  }
  parts.push(current);
  return parts;
}

function unescapeValue(v: string): string {
  return v.replace(/\\(.?)/g, (_m, c: string) => {
    if (c === '\\' || c === ',' || c === '=') return c;
    throw new SelectorError(`invalid field selector value: invalid escape sequence in "${v}"`);
  });
}

function findOperator(term: string): { index: number; op: '=' | '==' | '!=' } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
    } else if (term.startsWith('!=', i)) return { index: i, op: '!=' };
    else if (term.startsWith('==', i)) return { index: i, op: '==' };
    else if (term[i] === '=') return { index: i, op: '=' };
  }
  return undefined;
}

function fieldValue(obj: KubernetesObject, path: string): string {
  let v: unknown = obj;
  for (const part of path.split('.')) {
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  }
  return v === undefined || v === null ? '' : String(v);
}

/**
 * A matcher for a field selector (`metadata.name=x`, `==`, `!=`, comma-joined; `\,` `\=` `\\`
 * escapes). Fields: `metadata.name` and `metadata.namespace` on every resource, plus the ones
 * kube-apiserver supports for pods, events, secrets, namespaces, nodes, replicasets and jobs.
 * Throws {@link SelectorError} for a bad term or an unsupported field.
 */
export function fieldMatcher(
  selector: string | undefined,
  plural: string,
): ObjectMatcher | undefined {
  if (selector === undefined || selector.trim() === '') return undefined;
  const terms = parseFieldSelector(selector, plural);
  return (obj) => terms.every((t) => (fieldValue(obj, t.field) === t.value) !== t.negate);
}

/** One term of a field selector, as parsed: `field=value` or (negate) `field!=value`. */
export interface FieldTerm {
  field: string;
  value: string;
  negate: boolean;
}

/**
 * Parses a field selector for a resource (its supported fields only). Throws
 * {@link SelectorError} (the server's 400) for a bad term or an unsupported field.
 */
export function parseFieldSelector(selector: string, plural: string): FieldTerm[] {
  const allowed = [...COMMON_FIELDS, ...(FIELDS_BY_PLURAL[plural] ?? [])];
  return splitUnescaped(selector, ',').map((term) => {
    const found = findOperator(term);
    if (found === undefined) {
      throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    }
    const field = term.slice(0, found.index).trim();
    const value = unescapeValue(term.slice(found.index + found.op.length));
    if (!allowed.includes(field)) {
      throw new SelectorError(
        `"${field}" is not a known field selector: only ${allowed.map((f) => `"${f}"`).join(', ')}`,
      );
    }
    return { field, value, negate: found.op === '!=' };
  });
}
