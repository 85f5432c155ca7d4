import type { KubernetesObject } from '../../types.js';
import { matchesLabelSelector } from '../../objects/matchesLabelSelector.js';
import { parseLabelSelector } from '../../objects/parseLabelSelector.js';

/**
 * A field selector that cannot be parsed; the server answers 400 BadRequest with its message
 * (as it does with a `LabelSelectorError`'s).
 */
export class SelectorError extends Error {}

/** Tests an object. */
export type ObjectMatcher = (obj: KubernetesObject) => boolean;

/**
 * A matcher for a label selector (the library's {@link matchesLabelSelector}: one grammar, one
 * meaning); `undefined`/empty matches everything. Throws `LabelSelectorError`, with the
 * message kube-apiserver answers 400 with, when it cannot be parsed.
 */
export function labelMatcher(selector: string | undefined): ObjectMatcher | undefined {
  if (selector === undefined || selector.trim() === '') return undefined;
  parseLabelSelector(selector); // refused now, as a 400, not on the first object
  return (obj) => matchesLabelSelector(selector, obj.metadata?.labels);
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
