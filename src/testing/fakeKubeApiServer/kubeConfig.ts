import { KubeConfig } from '@kubernetes/client-node';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { TlsMaterial } from './tls.js';
import type { KubeConfigOptions } from './types.js';

const base64 = (s: string): string => Buffer.from(s).toString('base64');

/**
 * A KubeConfig with one cluster, user and context for a FakeKubeApiServer at `url`. Over HTTP
 * the cluster has `skipTLSVerify` (client-node 1.4 refuses `http://` otherwise); over HTTPS the
 * CA is in `caData` and TLS is verified.
 */
export function buildKubeConfig(
  url: string,
  tls: TlsMaterial | undefined,
  acceptedToken: string | null,
  opts: KubeConfigOptions,
): KubeConfig {
  const name = opts.context ?? 'fake';
  const kind = opts.user ?? (opts.token !== undefined || acceptedToken !== null ? 'token' : 'none');
  const cluster = {
    name,
    server: url,
    skipTLSVerify: tls === undefined,
    ...(tls !== undefined ? { caData: base64(tls.caPem) } : {}),
  };
  let user: { name: string; token?: string; certData?: string; keyData?: string } = { name };
  if (kind === 'token') {
    const token = opts.token ?? acceptedToken ?? undefined;
    if (token !== undefined) user = { name, token };
  } else if (kind === 'cert') {
    if (tls?.client === undefined) {
      throw new Error("user 'cert' needs FakeKubeApiServer.start({ tls: true, clientCA: true })");
    }
    user = { name, certData: base64(tls.client.cert), keyData: base64(tls.client.key) };
  }
  const context = {
    name,
    cluster: name,
    user: name,
    ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
  };
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [user],
    contexts: [context],
    currentContext: name,
  });
  return kc;
}

/** Writes `kc` to `path` (mode 0600: it holds a token); resolves with the absolute path. */
export async function writeKubeConfigFile(path: string, kc: KubeConfig): Promise<string> {
  const absolute = resolve(path);
  await writeFile(absolute, kc.exportConfig(), { mode: 0o600 });
  return absolute;
}
