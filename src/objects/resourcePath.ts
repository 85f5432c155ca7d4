import { WatchError } from '../WatchError.js';
import type { ResourceRef } from '../types.js';
import { versionOf } from './versionOf.js';
import { objectArgumentProblem, quoteValue } from './argumentChecks.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const API_VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

export type SegmentKind =
  'group' | 'version' | 'plural' | 'namespace' | 'name' | 'container' | 'subresource';

/**
 * Whether `value` is a valid path segment of its kind (DNS-1123 labels and subdomains, versions
 * such as `v1` or `v1beta2`): the rule {@link assertSegment} enforces.
 */
export function isValidSegment(kind: SegmentKind, value: string): boolean {
  switch (kind) {
    case 'version':
      return API_VERSION.test(value);
    case 'group':
    case 'name':
      return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
    default:
      return value.length <= 63 && DNS1123_LABEL.test(value);
  }
}

/**
 * The path a failed validation reports: every segment encoded, so it can never carry a query,
 * and cut to a length, so a huge bad value cannot make a huge message.
 */
function displayPath(segments: string[]): string {
  const shown = (segment: string) =>
    segment.length > 64
      ? `${encodeURIComponent(segment.slice(0, 64))}…`
      : encodeURIComponent(segment);
  return '/' + segments.map((s) => shown(String(s))).join('/');
}

/** Where a resource (and optionally one object and a subresource of it) lives on the API server. */
export interface ResourceLocation {
  /** Inserts `/namespaces/{namespace}` before the plural. */
  namespace?: string;
  /** One object: `/{name}` after the plural. */
  name?: string;
  /** A subresource of that object, e.g. `'log'` or `'status'`. */
  subresource?: string;
}

/**
 * Builds the API path of a resource: `/api/v1/pods`, `/apis/apps/v1/namespaces/prod/deployments`,
 * `/api/v1/namespaces/default/pods/web-1/log`. Every segment is validated (DNS-1123 labels and
 * subdomains, versions such as `v1` or `v1beta2`) and encoded; invalid input throws a
 * {@link WatchError} BAD_REQUEST (400) whose message names the bad segment.
 *
 * @example
 * resourcePath({ group: 'apps', version: 'v1', plural: 'deployments' }, { namespace: 'prod' });
 * // '/apis/apps/v1/namespaces/prod/deployments'
 */
export function resourcePath(
  resource: ResourceRef<unknown>,
  location: ResourceLocation = {},
): string {
  // A reference that is not an object is named as such before any field is read.
  const problem = objectArgumentProblem('resource', resource);
  if (problem !== undefined) throw WatchError.badRequest('/', problem);
  const { group, plural } = resource;
  const version = versionOf(resource);
  const checks: Array<[SegmentKind, unknown]> = [
    ['version', version],
    ['plural', plural],
  ];
  if (group !== '') checks.unshift(['group', group]);
  if (location.namespace !== undefined) checks.push(['namespace', location.namespace]);
  if (location.name !== undefined) checks.push(['name', location.name]);
  if (location.subresource !== undefined) checks.push(['subresource', location.subresource]);

  const segments = [group === '' ? 'api' : 'apis'];
  if (group !== '') segments.push(String(group));
  segments.push(String(version));
  if (location.namespace !== undefined) segments.push('namespaces', location.namespace);
  segments.push(String(plural));
  if (location.name !== undefined) segments.push(location.name);
  if (location.subresource !== undefined) segments.push(location.subresource);

  for (const [kind, value] of checks) {
    // The path for the message only when one is needed: a write's path is built per request.
    if (typeof value !== 'string' || !isValidSegment(kind, value)) {
      assertSegment(kind, value, displayPath(segments));
    }
  }
  return '/' + segments.map(encodeURIComponent).join('/');
}

/**
 * Throws a {@link WatchError} BAD_REQUEST unless `value` is a valid segment of its kind.
 *
 * @example
 * assertSegment('container', 'main', '/api/v1/namespaces/default/pods/web-1/log');
 */
export function assertSegment(
  kind: SegmentKind,
  value: unknown,
  pathForMessage: string,
): asserts value is string {
  if (typeof value !== 'string' || !isValidSegment(kind, value)) {
    const what = kind === 'version' ? 'API version' : 'name';
    const message = `invalid ${kind} ${quoteValue(value)}: not a valid Kubernetes ${what}`;
    throw WatchError.badRequest(pathForMessage, message);
  }
}

/**
 * The path of a resource for messages, even when it is invalid (segments encoded, never a query).
 *
 * @example
 * describeResourcePath(pods, 'default'); // '/api/v1/namespaces/default/pods'
 */
export function describeResourcePath(resource: ResourceRef<unknown>, namespace?: string): string {
  try {
    return resourcePath(resource, { namespace });
  } catch (error) {
    return (error as WatchError).resourcePath;
  }
}
