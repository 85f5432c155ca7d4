import { apiVersionOf } from '../objects/resources.js';
import type { ResourceRef } from '../types.js';

/**
 * The `resource` label of a watch: `{group}/{version}/{plural}` (`v1/pods` for the core group),
 * or the string given. Bounded: one value per resource watched, never an object's name.
 *
 * @example
 * resourceLabel({ group: 'apps', version: 'v1', plural: 'deployments' }); // 'apps/v1/deployments'
 */
export function resourceLabel(resource: ResourceRef<unknown> | string): string {
  if (typeof resource === 'string') return resource;
  return `${apiVersionOf(resource)}/${resource.plural}`;
}
