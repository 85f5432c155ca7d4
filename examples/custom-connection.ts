/**
 * A custom ClusterConnection: a server URL, a CA, and a bearer token read afresh for every
 * request, without any kubeconfig.
 *
 *   npm run example examples/custom-connection.ts [namespace]
 *
 * Inside a pod it uses the service account (KUBERNETES_SERVICE_HOST/PORT and the files under
 * /var/run/secrets/kubernetes.io/serviceaccount); elsewhere set KUBE_SERVER, KUBE_TOKEN_FILE and,
 * for a private CA, KUBE_CA_FILE.
 *
 * kube-rx calls `resolve()` before every request (each list page, each watch connection and
 * each reconnect of a resumed watch), so a token file that is rotated (the kubelet rotates
 * projected service account tokens) is picked up without a restart. The connection is plain
 * data (`server`, `headers`, `tls`): kube-rx verifies the server with its CA and reuses its
 * connections (keep-alive, HTTP/2 where the server offers it).
 *
 * In your project, import from 'kube-rx' instead of '../src/index.js'.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { lastValueFrom } from 'rxjs';
import { fromList, pods } from '../src/index.js';
import type { ClusterConnection } from '../src/index.js';
import type { ExampleOptions } from './first-watch.js';

/** Where and how {@link tokenConnection} connects. */
export interface TokenConnectionSettings {
  /** A name for messages (default: the server's host). */
  name?: string;
  /** `https://host:port` of the API server. */
  server: string;
  /** The bearer token, asked for before every request. */
  token: () => string | Promise<string>;
  /** PEM of the CA that signed the server's certificate (default: Node.js's trusted CAs). */
  ca?: string | Buffer;
}

/** A ClusterConnection with a bearer token from `settings.token()`, verifying with `settings.ca`. */
export function tokenConnection(settings: TokenConnectionSettings): ClusterConnection {
  return {
    name: settings.name ?? new URL(settings.server).host,
    async resolve() {
      // A rejection here becomes a 401 WatchError saying why, before any request is sent.
      const token = (await settings.token()).trim();
      if (!token) throw new Error('the token is empty');
      return {
        server: settings.server,
        headers: { Authorization: `Bearer ${token}` },
        ...(settings.ca !== undefined && { tls: { ca: settings.ca } }),
      };
    },
  };
}

/** Reads the token from a file each time it is asked for, so a rotated file is picked up. */
export function tokenFromFile(path: string): () => Promise<string> {
  return () => readFile(path, 'utf8');
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Settings from KUBE_SERVER, KUBE_TOKEN_FILE and KUBE_CA_FILE, else the pod's service account. */
export function settingsFromEnvironment(env = process.env): TokenConnectionSettings {
  const host = env.KUBERNETES_SERVICE_HOST;
  const inCluster = host && `https://${host.includes(':') ? `[${host}]` : host}`;
  const server =
    env.KUBE_SERVER ?? (inCluster && `${inCluster}:${env.KUBERNETES_SERVICE_PORT ?? 443}`);
  if (!server) throw new Error('set KUBE_SERVER and KUBE_TOKEN_FILE, or run inside a pod');
  const caFile = env.KUBE_CA_FILE ?? `${SERVICE_ACCOUNT}/ca.crt`;
  return {
    server,
    token: tokenFromFile(env.KUBE_TOKEN_FILE ?? `${SERVICE_ACCOUNT}/token`),
    ca: existsSync(caFile) ? readFileSync(caFile) : undefined,
  };
}

/** Options of this example. */
export interface CustomConnectionOptions extends ExampleOptions {
  /** Only this namespace (default: all namespaces). */
  namespace?: string;
}

/**
 * Lists the pods through `cluster` and logs `namespace/name` of each. Resolves with those
 * names; rejects with a WatchError (e.g. UNAUTHORIZED_ERROR 401 for a token the server refuses),
 * or with rxjs's EmptyError when `signal` aborts the list.
 */
export async function main(
  cluster: ClusterConnection,
  options: CustomConnectionOptions = {},
): Promise<string[]> {
  const { namespace, signal, log = console.log } = options;
  const { items, resourceVersion } = await lastValueFrom(
    fromList(cluster, pods, { namespace, signal }),
  );
  const names = items.map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`);
  for (const name of names) log(name);
  log(`${names.length} pods on ${cluster.name} at resourceVersion ${resourceVersion}`);
  return names;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(tokenConnection(settingsFromEnvironment()), { namespace: process.argv[2] });
}
