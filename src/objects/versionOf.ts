import type { ResourceRef } from '../types.js';

/**
 * The version of a resource ref within its group: `version`, else the deprecated `apiVersion`
 * (accepted until 1.0). `undefined` for input that is not a ref (validation reports it).
 *
 * @example
 * versionOf({ group: 'apps', version: 'v1', plural: 'deployments' }); // 'v1'
 */
export function versionOf(resource: ResourceRef<unknown>): string {
  const ref = resource as { version?: unknown; apiVersion?: unknown } | null | undefined;
  if (typeof ref !== 'object' || ref === null) return undefined as unknown as string;
  return (ref.version ?? ref.apiVersion) as string;
}
