import type { KubeConfig } from '@kubernetes/client-node';
import { resolveKubeConfig } from './platform.js';
import type { Cluster, ResolveContext, ResolvedConnection } from '../../types.js';

/**
 * True when `cluster` is a KubeConfig (rather than a custom {@link ClusterConnection}). Checked by
 * shape, so that this module needs client-node's types only (it runs in a browser too).
 */
function isKubeConfig(cluster: Cluster): cluster is KubeConfig {
  return typeof (cluster as Partial<KubeConfig>).applyToHTTPSOptions === 'function';
}

/**
 * Resolves where to connect and with which credentials, afresh for each request, so exec
 * plugins and token files that rotate are picked up on every reconnect. A KubeConfig resolves
 * through the KubeConfig adapter (`kubeConfigConnection.ts`; TLS settings from client-node's
 * public `applyToHTTPSOptions`), in Node only: in a browser it is refused, with a message saying
 * to pass a ClusterConnection. A custom connection's value is used as it resolved (its headers
 * are sent as resolved, whatever the scheme: the user built them). `context` is the request's:
 * its logger hears that a plain-HTTP cluster's KubeConfig credentials are not sent. Rejects with
 * a message that says why, and never carries a credential.
 *
 * @example
 * const { server, headers, tls } = await resolveConnection(kc, { logger: options.logger });
 */
export async function resolveConnection(
  cluster: Cluster,
  context: ResolveContext = {},
): Promise<ResolvedConnection> {
  if (cluster === null || typeof cluster !== 'object') throw new Error('no cluster given');
  const resolved = isKubeConfig(cluster)
    ? await resolveKubeConfig(cluster, context)
    : await cluster.resolve(context);
  if (!resolved || typeof resolved.server !== 'string' || !/^https?:\/\//.test(resolved.server)) {
    throw new Error('the cluster connection resolved to no http(s) server URL');
  }
  return resolved;
}
