import type { KubernetesObject } from '../../types.js';
import type { Route } from './paths.js';
import { LabelSelectorError } from '../../objects/LabelSelectorError.js';
import { fieldMatcher, labelMatcher, SelectorError } from './selectors.js';
import type { ObjectMatcher } from './selectors.js';
import { badRequest } from './statusBody.js';

/** The query parameters of a list or watch, parsed and validated (400 Status on bad input). */
export interface CollectionQuery {
  watch: boolean;
  /** Numeric resourceVersion; undefined when absent or empty. */
  resourceVersion?: number;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  /** Namespace, name and selectors; undefined when everything matches. */
  matches?: ObjectMatcher;
  /** A label or field selector was given. */
  selective: boolean;
}

/** Go's strconv.ParseBool, as kube-apiserver reads boolean parameters. */
function parseBool(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw badRequest(`invalid value for ${name}: "${value}"`);
}

function parseCount(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`invalid value for ${name}: "${value}"`);
  return Number(value);
}

/** `watch=true` or `watch=1`. */
export function isWatchQuery(query: Record<string, string>): boolean {
  return query.watch === 'true' || query.watch === '1';
}

/** Parses a resourceVersion parameter: undefined for absent/empty, 400 when not a number. */
function parseResourceVersion(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) {
    throw badRequest(`resourceVersion: Invalid value: "${value}": must be a non-negative integer`);
  }
  return Number(value);
}

/** Reads and validates the parameters of a list or watch of `route`. */
export function parseCollectionQuery(route: Route, query: Record<string, string>): CollectionQuery {
  if (route.kind === 'log') throw new Error('not a collection');
  const watch = isWatchQuery(query);
  const match = query.resourceVersionMatch;
  if (match !== undefined && match !== '' && match !== 'NotOlderThan' && match !== 'Exact') {
    throw badRequest(
      `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
    );
  }
  const q: CollectionQuery = {
    watch,
    resourceVersion: parseResourceVersion(query.resourceVersion),
    resourceVersionMatch: match === '' ? undefined : match,
    limit: parseCount('limit', query.limit),
    continue: query.continue === '' ? undefined : query.continue,
    timeoutSeconds: parseCount('timeoutSeconds', query.timeoutSeconds),
    allowWatchBookmarks: parseBool('allowWatchBookmarks', query.allowWatchBookmarks) ?? false,
    sendInitialEvents: parseBool('sendInitialEvents', query.sendInitialEvents),
    selective: Boolean(query.labelSelector || query.fieldSelector),
  };
  validate(q, query.resourceVersion);
  const matchers: ObjectMatcher[] = [];
  const namespace = route.namespace;
  if (namespace !== undefined) matchers.push((o) => o.metadata?.namespace === namespace);
  if (route.kind === 'object') matchers.push((o) => o.metadata?.name === route.name);
  try {
    const labels = labelMatcher(query.labelSelector);
    const fields = fieldMatcher(query.fieldSelector, route.resource.plural);
    if (labels !== undefined) matchers.push(labels);
    if (fields !== undefined) matchers.push(fields);
  } catch (e) {
    if (e instanceof SelectorError || e instanceof LabelSelectorError) throw badRequest(e.message);
    throw e;
  }
  if (matchers.length === 1) q.matches = matchers[0];
  else if (matchers.length > 1) {
    q.matches = (o: KubernetesObject) => matchers.every((m) => m(o));
  }
  return q;
}

/** The rules kube-apiserver applies to list/watch options (apimachinery ValidateListOptions). */
function validate(q: CollectionQuery, rawRv: string | undefined): void {
  if (q.watch) {
    if (q.sendInitialEvents !== undefined) {
      if (q.resourceVersionMatch !== 'NotOlderThan') {
        throw badRequest(
          'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        );
      }
      if (q.sendInitialEvents && !q.allowWatchBookmarks) {
        throw badRequest(
          'allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
        );
      }
    } else if (q.resourceVersionMatch !== undefined) {
      throw badRequest(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      );
    }
    return;
  }
  if (q.sendInitialEvents !== undefined) {
    throw badRequest('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  }
  if (q.resourceVersionMatch !== undefined) {
    if (rawRv === undefined || rawRv === '') {
      throw badRequest(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      );
    }
    if (q.resourceVersionMatch === 'Exact' && q.resourceVersion === 0) {
      throw badRequest(
        'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      );
    }
  }
  if (q.continue !== undefined && q.resourceVersion !== undefined && q.resourceVersion !== 0) {
    throw badRequest('specifying resource version is not allowed when using continue');
  }
}
