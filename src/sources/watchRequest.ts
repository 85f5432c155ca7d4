import { WatchError } from '../WatchError.js';
import type { Cluster, ResourceRef, WatchOptions } from '../types.js';
import { openStream, type StreamOpenResult } from './streamingBody.js';
import { resourcePath } from './resourcePath.js';

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

function badRequest(message: string, path: string): WatchError {
  return new WatchError(`${message} (${path})`, {
    errorType: 'BAD_REQUEST',
    statusCode: 400,
    resourcePath: path,
  });
}

/**
 * The path and query of a watch, or the reason the options are invalid. Every query value is
 * URL-encoded by URLSearchParams, so a selector can never add parameters.
 */
export function watchRequest(
  resource: ResourceRef<unknown>,
  options: WatchOptions,
): { path: string; query: URLSearchParams } | { error: WatchError } {
  let path: string;
  try {
    path = resourcePath(resource, { namespace: options.namespace });
  } catch (error) {
    return { error: error as WatchError };
  }
  const { timeoutSeconds, resourceVersionMatch, maxLineBytes } = options;
  if (timeoutSeconds !== undefined && !(Number.isInteger(timeoutSeconds) && timeoutSeconds >= 0)) {
    return {
      error: badRequest(
        `timeoutSeconds must be a whole number of seconds, not ${timeoutSeconds}`,
        path,
      ),
    };
  }
  if (
    resourceVersionMatch !== undefined &&
    resourceVersionMatch !== 'NotOlderThan' &&
    resourceVersionMatch !== 'Exact'
  ) {
    return {
      error: badRequest(
        `resourceVersionMatch must be NotOlderThan or Exact, not ${JSON.stringify(resourceVersionMatch)}`,
        path,
      ),
    };
  }
  if (maxLineBytes !== undefined && !(Number.isInteger(maxLineBytes) && maxLineBytes > 0)) {
    return {
      error: badRequest(`maxLineBytes must be a positive whole number, not ${maxLineBytes}`, path),
    };
  }
  const query = new URLSearchParams({ watch: 'true' });
  for (const key of QUERY_OPTIONS) {
    const value = options[key];
    if (value === undefined || value === false || value === '') continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return { error: badRequest(`${key} must be a string, not ${typeof value}`, path) };
    }
    query.set(key, String(value));
  }
  return { path, query };
}

/**
 * Opens one watch: validates and builds the request, resolves credentials afresh, and sends it.
 * Shared by `watchResource` and `fromWatch`, so both make exactly the same request.
 */
export async function openWatch(
  cluster: Cluster,
  resource: ResourceRef<unknown>,
  options: WatchOptions,
  signal: AbortSignal,
): Promise<StreamOpenResult & { resourcePath: string }> {
  const request = watchRequest(resource, options);
  if ('error' in request)
    return { ok: false, error: request.error, resourcePath: request.error.resourcePath };
  const result = await openStream(cluster, request.path, request.query, signal);
  return { ...result, resourcePath: request.path };
}
