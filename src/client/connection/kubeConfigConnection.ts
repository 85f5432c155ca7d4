// The KubeConfig adapter: Node only (client-node at run time). The browser entry leaves it out;
// its platform refuses a KubeConfig (src/client/connection/platform.browser.ts).
import { KubeConfig } from '@kubernetes/client-node';
import type https from 'node:https';
import { basicAuthorization } from '../../security/basicAuthorization.js';
import { mayCarryCredentials } from '../../security/mayCarryCredentials.js';
import { proxyForUrl } from '../../transport/proxyForUrl.js';
import type {
  ClusterConnection,
  Logger,
  ResolveContext,
  ResolvedConnection,
  ResolvedTls,
} from '../../types.js';

/**
 * A {@link ClusterConnection} for one context of a KubeConfig (the current one by default),
 * without changing the KubeConfig's own current context. `http2: false` forces HTTP/1.1.
 * `logger` gets the warning that a plain-HTTP cluster's credentials are not sent (see
 * `resolveKubeConfig`); unset, the logger of the request resolving it does.
 *
 * @example
 * const staging = kubeConfigConnection(kc, { context: 'staging', logger: console });
 * fromWatch(staging, pods).subscribe(console.log);
 */
export function kubeConfigConnection(
  kubeConfig: KubeConfig,
  { context, http2, logger }: { context?: string; http2?: boolean; logger?: Logger } = {},
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
  return {
    name: config.getCurrentContext(),
    resolve: async (request: ResolveContext = {}) => {
      const resolved = await resolveKubeConfig(config, { logger: logger ?? request.logger });
      return http2 === false ? { ...resolved, http2: false } : resolved;
    },
  };
}

/**
 * Where the KubeConfig's current context connects and with which credentials, resolved now (exec
 * plugins and token files that rotate are picked up on every call). TLS settings (CA, client
 * certificates, `tls-server-name`, skipTLSVerify only when the config says so) come from
 * client-node's public `applyToHTTPSOptions`; the proxy is the kubeconfig's `proxy-url`, else
 * the environment's as kubectl reads it.
 *
 * Credentials travel only where {@link mayCarryCredentials} allows: a plain-HTTP server that is
 * not loopback (or a loopback one behind a plain-HTTP proxy elsewhere) gets none, and the
 * user's exec plugin, auth provider or token file is not even read. The first such resolution
 * of each cluster of this KubeConfig with a `logger` warns through it, naming the cluster.
 *
 * ```
 * server http://kube.example:8080, user token T  -> { server, headers: {} }   (warns once)
 * server http://127.0.0.1:8001,    user token T  -> { server, headers: { authorization: 'Bearer T' } }
 * ```
 *
 * @example
 * const { server, headers, tls } = await resolveKubeConfig(kc, { logger: console });
 */
export async function resolveKubeConfig(
  kubeConfig: KubeConfig,
  { logger }: ResolveContext = {},
): Promise<ResolvedConnection> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster (no current context?)');
  // The kubeconfig's proxy-url, else HTTPS_PROXY/HTTP_PROXY/NO_PROXY as kubectl reads them.
  const proxy = proxyForUrl(cluster.server, { proxyUrl: cluster.proxyUrl, env: process.env });
  if (!mayCarryCredentials(cluster.server, proxy)) {
    warnPlainHttp(kubeConfig, cluster.name, logger);
    return proxy === undefined
      ? { server: cluster.server, headers: {} }
      : { server: cluster.server, headers: {}, proxy };
  }
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const headers = plainHeaders(options.headers);
  if (options.auth && headers.authorization === undefined)
    headers.authorization = basicAuthorization(options.auth);
  const tls: ResolvedTls = {};
  if (options.ca) tls.ca = options.ca as string | Buffer;
  if (options.cert) tls.cert = options.cert as string | Buffer;
  if (options.key) tls.key = options.key as string | Buffer;
  if (options.servername) tls.servername = options.servername;
  if (options.rejectUnauthorized === false) tls.rejectUnauthorized = false;
  const resolved: ResolvedConnection = { server: cluster.server, headers, tls };
  if (proxy !== undefined) resolved.proxy = proxy;
  return resolved;
}

/** The clusters of each KubeConfig already warned about, by name. */
const warned = new WeakMap<KubeConfig, Set<string>>();

/** Warns once per cluster of `kubeConfig`, when there is a logger to hear it. */
function warnPlainHttp(kubeConfig: KubeConfig, cluster: string, logger: Logger | undefined): void {
  if (!logger) return;
  const names = warned.get(kubeConfig) ?? new Set<string>();
  warned.set(kubeConfig, names);
  if (names.has(cluster)) return;
  names.add(cluster);
  logger.warn(`the cluster ${cluster} is plain HTTP: credentials are not sent`);
}

/** Headers as a plain object, whatever form they came in (Headers, array pairs or a record). */
function plainHeaders(headers: unknown): Record<string, string> {
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
