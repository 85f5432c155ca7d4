import type { ListOptions } from '../../types.js';

/**
 * The query of one list page: selectors, the page size (`limit` 0: no paging), and either the
 * continue token of the next page or, on the first page, the resourceVersion asked for. Every
 * value is encoded by URLSearchParams, so a selector can never add parameters.
 *
 * @example
 * listPageQuery({ labelSelector: 'app=web' }, 500, undefined).toString(); // 'labelSelector=app%3Dweb&limit=500'
 */
export function listPageQuery(
  options: ListOptions,
  limit: number,
  token: string | undefined,
): URLSearchParams {
  const query = new URLSearchParams();
  if (options.labelSelector) query.set('labelSelector', options.labelSelector);
  if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
  if (limit > 0) query.set('limit', String(limit));
  if (token) query.set('continue', token);
  else if (options.resourceVersion !== undefined) {
    query.set('resourceVersion', options.resourceVersion);
    if (options.resourceVersionMatch)
      query.set('resourceVersionMatch', options.resourceVersionMatch);
  }
  return query;
}
