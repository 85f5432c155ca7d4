import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { RequestInit } from 'node-fetch';
import type { Cluster, ClusterConnection, ResolvedConnection } from '../types.js';

/** True when `cluster` is a KubeConfig (rather than a custom {@link ClusterConnection}). */
function isKubeConfig(cluster: Cluster): cluster is KubeConfig {
  return (
    cluster instanceof KubeConfig ||
    typeof (cluster as unknown as KubeConfig).applyToFetchOptions === 'function'
  );
}

/**
 * A {@link ClusterConnection} for one context of a KubeConfig (the current one by default),
 * without changing the KubeConfig's own current context.
 *
 * @example
 * const staging = kubeConfigConnection(kc, { context: 'staging' });
 * fromWatch(staging, pods).subscribe(console.log);
 */
export function kubeConfigConnection(
  kubeConfig: KubeConfig,
  { context }: { context?: string } = {},
): ClusterConnection {
  let config = kubeConfig;
  if (context !== undefined && context !== kubeConfig.getCurrentContext()) {
    if (!kubeConfig.getContextObject(context))
      throw new Error(`no context named ${JSON.stringify(context)} in the kubeconfig`);
    config = new KubeConfig();
    config.loadFromOptions({
      clusters: kubeConfig.getClusters(),
      users: kubeConfig.getUsers(),
      contexts: kubeConfig.getContexts(),
      currentContext: context,
    });
  }
  return { name: config.getCurrentContext(), resolve: () => resolveKubeConfig(config) };
}

/**
 * Resolves where to connect and with which credentials, afresh for each request, so exec
 * plugins and token files that rotate are picked up on every reconnect. TLS settings (CA,
 * client certificates, skipTLSVerify only when the config says so) come with the agent.
 * Rejects with a message that says why, and never carries a credential.
 *
 * @example
 * const { server, init } = await resolveConnection(kc);
 */
export async function resolveConnection(cluster: Cluster): Promise<ResolvedConnection> {
  if (cluster === null || typeof cluster !== 'object') throw new Error('no cluster given');
  const resolved = isKubeConfig(cluster)
    ? await resolveKubeConfig(cluster)
    : await cluster.resolve();
  if (!resolved || typeof resolved.server !== 'string' || !/^https?:\/\//.test(resolved.server)) {
    throw new Error('the cluster connection resolved to no http(s) server URL');
  }
  return resolved;
}

async function resolveKubeConfig(kubeConfig: KubeConfig): Promise<ResolvedConnection> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster (no current context?)');
  const options = (await kubeConfig.applyToFetchOptions({})) as unknown as RequestInit & {
    headers?: unknown;
  };
  return {
    server: cluster.server,
    // node-fetch's `timeout` would also bound the body, and a watch is meant to stay open.
    init: { agent: options.agent, headers: plainHeaders(options.headers) },
  };
}

/** Headers as a plain object, whatever form they came in (Headers, array pairs or a record). */
export function plainHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (typeof (headers as Headers).forEach === 'function' && !Array.isArray(headers)) {
    (headers as Headers).forEach((value, key) => (out[key.toLowerCase()] = value));
  } else if (Array.isArray(headers)) {
    for (const [key, value] of headers as Array<[string, string]>)
      out[String(key).toLowerCase()] = String(value);
  } else {
    for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
      if (value !== undefined)
        out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    }
  }
  return out;
}

/** The agent a request uses: the connection's own, or a fresh one that verifies TLS. */
export function agentFor(server: string, agent: unknown): http.Agent {
  if (agent instanceof http.Agent) return agent;
  return server.startsWith('https:') ? new https.Agent() : new http.Agent();
}
