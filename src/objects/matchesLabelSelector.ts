import { describeType, isObjectArgument, quoteValue } from './argumentChecks.js';
import { LabelSelectorError } from './LabelSelectorError.js';
import {
  meetsRequirement,
  parseLabelSelector,
  validateLabelKey,
  validateLabelValue,
} from './parseLabelSelector.js';
import type { LabelRequirement } from './parseLabelSelector.js';

/**
 * A label selector object as objects carry it (`spec.selector` of a Deployment, a ReplicaSet, a
 * Job...): `V1LabelSelector` of `@kubernetes/client-node` is one.
 */
export interface LabelSelector {
  /** `{ key: value }` pairs; each is the requirement `key In (value)`. */
  matchLabels?: { [key: string]: string };
  /** Requirements on keys: `In` and `NotIn` with `values`, `Exists` and `DoesNotExist` without. */
  matchExpressions?: {
    /** The label key the requirement is on. */
    key: string;
    /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
    operator: string;
    /** The values of `In` and `NotIn` (at least one); none for `Exists` and `DoesNotExist`. */
    values?: string[];
  }[];
}

/** Parsed selector strings, so a selector applied to every object of a store is parsed once. */
const parsed = new Map<string, LabelRequirement[]>();
const PARSED_KEPT = 256;

function requirementsOfString(selector: string): LabelRequirement[] {
  let requirements = parsed.get(selector);
  if (requirements === undefined) {
    requirements = parseLabelSelector(selector);
    if (parsed.size >= PARSED_KEPT) parsed.clear(); // a bound, not a policy: selectors are few
    parsed.set(selector, requirements);
  }
  return requirements;
}

const OPERATORS: Record<string, LabelRequirement['op']> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!exists',
};

/** apimachinery's `LabelSelectorAsSelector`, past its nil and empty cases. */
function requirementsOfObject(selector: LabelSelector): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels != null && !isObjectArgument(matchLabels)) {
    throw new LabelSelectorError(`matchLabels must be an object, not ${describeType(matchLabels)}`);
  }
  if (matchExpressions != null && !Array.isArray(matchExpressions)) {
    throw new LabelSelectorError(
      `matchExpressions must be an array, not ${describeType(matchExpressions)}`,
    );
  }
  for (const [key, value] of Object.entries(matchLabels ?? {})) {
    validateLabelKey(key);
    if (typeof value !== 'string') {
      throw new LabelSelectorError(`matchLabels[${quoteValue(key)}] must be a string`);
    }
    validateLabelValue(value);
    requirements.push({ key, op: '=', values: [value] });
  }
  for (const expression of matchExpressions ?? []) {
    if (!isObjectArgument(expression)) {
      throw new LabelSelectorError(
        `a matchExpression must be an object, not ${describeType(expression)}`,
      );
    }
    const { key, operator, values = [] } = expression;
    if (!Array.isArray(values)) {
      throw new LabelSelectorError(
        `the values of a matchExpression must be an array, not ${describeType(values)}`,
      );
    }
    const op = Object.hasOwn(OPERATORS, operator) ? OPERATORS[operator] : undefined;
    if (op === undefined) {
      throw new LabelSelectorError(
        `${quoteValue(operator)} is not a valid label selector operator`,
      );
    }
    if (typeof key !== 'string') throw new LabelSelectorError('a matchExpression has no key');
    validateLabelKey(key);
    if ((op === 'in' || op === 'notin') && values.length === 0) {
      throw new LabelSelectorError(`for 'in', 'notin' operators, values set can't be empty`);
    }
    if ((op === 'exists' || op === '!exists') && values.length > 0) {
      throw new LabelSelectorError('values set must be empty for exists and does not exist');
    }
    for (const value of values) validateLabelValue(value);
    requirements.push({ key, op, values });
  }
  return requirements;
}

/**
 * Whether a label selector selects `labels`, with kube's semantics, for a selector in either of
 * its two forms:
 * - a {@link LabelSelector} object (`matchLabels` and `matchExpressions` with `In`, `NotIn`,
 *   `Exists`, `DoesNotExist`), read as apimachinery's `metav1.LabelSelectorAsSelector`
 *   (pkg/apis/meta/v1/helpers.go) reads it: `null`/`undefined` selects **nothing**
 *   (`labels.Nothing()`), an empty object (no matchLabels, no matchExpressions) selects
 *   **everything** (`labels.Everything()`);
 * - a selector string, kube's `labels.Parse` grammar as `kubectl -l` and `?labelSelector=` take
 *   it: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`,
 *   comma-joined (all must hold); the empty string selects everything.
 *
 * `!=`, `notin` and `!a` hold for objects without the key. Labels are own keys only. Missing
 * `labels` are no labels. A Deployment or a ReplicaSet never selects all pods (their controllers
 * refuse an empty selector): a caller matching pods to them checks for that itself.
 *
 * Throws a {@link LabelSelectorError} (a TypeError) with kube-apiserver's message for a selector
 * it cannot read: bad grammar, a bad key or value, an unknown operator, `In` without values.
 *
 * @example
 * matchesLabelSelector({ matchLabels: { app: 'web' } }, { app: 'web', tier: 'front' }); // true
 * matchesLabelSelector('app=web,tier notin (back)', pod.metadata?.labels); // true for that pod
 * matchesLabelSelector({}, {}); // true: an empty selector selects everything
 * matchesLabelSelector(undefined, { app: 'web' }); // false: no selector selects nothing
 */
export function matchesLabelSelector(
  selector: LabelSelector | string | null | undefined,
  labels: Readonly<Record<string, string>> | null | undefined,
): boolean {
  if (selector === null || selector === undefined) return false;
  let requirements: LabelRequirement[];
  if (typeof selector === 'string') requirements = requirementsOfString(selector);
  else if (isObjectArgument(selector)) requirements = requirementsOfObject(selector);
  else {
    throw new LabelSelectorError(
      `matchesLabelSelector: selector must be a string or an object, not ${describeType(selector)}`,
    );
  }
  if (labels !== null && labels !== undefined && !isObjectArgument(labels)) {
    throw new TypeError(
      `matchesLabelSelector: labels must be an object, not ${describeType(labels)}`,
    );
  }
  const own = labels ?? {};
  return requirements.every((r) => meetsRequirement(r, own));
}
