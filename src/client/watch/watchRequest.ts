import { WatchError } from '../../WatchError.js';
import type { ResourceRef, WatchOptions } from '../../types.js';
import { resourcePath } from '../../objects/resourcePath.js';
import { isLineBound } from './lineFramer.js';
import { quoteValue, requestArgumentsError } from '../../objects/argumentChecks.js';

/** The query options of a watch, in the order they are sent after `watch=true`. */
const QUERY_OPTIONS = [
  'labelSelector',
  'fieldSelector',
  'resourceVersion',
  'resourceVersionMatch',
  'timeoutSeconds',
  'allowWatchBookmarks',
  'sendInitialEvents',
] as const;

/**
 * The path and query of a watch, or the reason the options are invalid. Every query value is
 * URL-encoded by URLSearchParams, so a selector can never add parameters.
 *
 * @example
 * const request = watchRequest(pods, { namespace: 'default', timeoutSeconds: 300 });
 * if ('error' in request) throw request.error;
 */
export function watchRequest(
  resource: ResourceRef<unknown>,
  options: WatchOptions,
): { path: string; query: URLSearchParams } | { error: WatchError } {
  // Neither argument is read before it is known to be an object: one BAD_REQUEST, no crash.
  const invalid = requestArgumentsError(resource, options);
  if (invalid !== undefined) return { error: invalid };
  let path: string;
  try {
    path = resourcePath(resource, { namespace: options.namespace });
  } catch (error) {
    return { error: error as WatchError };
  }
  const { timeoutSeconds, resourceVersionMatch, maxLineBytes } = options;
  if (timeoutSeconds !== undefined && !(Number.isInteger(timeoutSeconds) && timeoutSeconds >= 0)) {
    return {
      error: WatchError.badRequest(
        path,
        `timeoutSeconds must be a whole number of seconds, not ${quoteValue(timeoutSeconds)}`,
      ),
    };
  }
  if (
    resourceVersionMatch !== undefined &&
    resourceVersionMatch !== 'NotOlderThan' &&
    resourceVersionMatch !== 'Exact'
  ) {
    return {
      error: WatchError.badRequest(
        path,
        `resourceVersionMatch must be NotOlderThan or Exact, not ${quoteValue(resourceVersionMatch)}`,
      ),
    };
  }
  if (maxLineBytes !== undefined && !isLineBound(maxLineBytes)) {
    return {
      error: WatchError.badRequest(
        path,
        `maxLineBytes must be a positive whole number, not ${quoteValue(maxLineBytes)}`,
      ),
    };
  }
  if (options.transform !== undefined && typeof options.transform !== 'function') {
    return {
      error: WatchError.badRequest(
        path,
        `transform must be a function, not ${typeof options.transform}`,
      ),
    };
  }
  const query = new URLSearchParams({ watch: 'true' });
  for (const key of QUERY_OPTIONS) {
    const value = options[key];
    if (value === undefined || value === false || value === '') continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return { error: WatchError.badRequest(path, `${key} must be a string, not ${typeof value}`) };
    }
    query.set(key, String(value));
  }
  return { path, query };
}
