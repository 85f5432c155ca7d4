// The browser entry's side of platform.ts: the same exports and types, nothing of Node.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ResolveContext, ResolvedConnection } from '../../types.js';

/**
 * A page has no KubeConfig (no files, exec plugins or client certificates): refused, saying what
 * to pass instead.
 *
 * @example
 * fromWatch({ resolve: async () => ({ server: location.origin + '/k8s' }) }, pods);
 */
export async function resolveKubeConfig(
  _kubeConfig: KubeConfig,
  _context?: ResolveContext,
): Promise<ResolvedConnection> {
  throw new Error(
    'a KubeConfig needs Node: in a browser, pass a ClusterConnection resolving { server, headers }',
  );
}
