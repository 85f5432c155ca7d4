import type { KubeConfig } from '@kubernetes/client-node';
import type { FakeKubeApiServer } from '../../../src/testing/index.js';
import { forward } from '../../support/forward.js';
import { RawServer } from '../../support/rawServer.js';

/**
 * A server without Table support in front of the test kit: every request is forwarded to `api`
 * with its Accept header cut to `application/json`, so lists and watches come back as the plain
 * objects, as from an aggregated API server (or an older one) that does not convert to Tables.
 * kube-apiserver itself always answers Tables, so the kit has no switch for this.
 *
 * @example
 * const plain = await withoutTables(api);
 * await runCli(['watch', 'pods'], { env: { KUBECONFIG: writeKubeConfig(plain.kubeConfig) } });
 */
export async function withoutTables(
  api: FakeKubeApiServer,
): Promise<{ kubeConfig: KubeConfig; raw: RawServer; stop(): Promise<void> }> {
  const target = new URL(api.url);
  const raw = await RawServer.start((req, res) =>
    forward(target, req, res, { headers: { accept: 'application/json' } }),
  );
  return { kubeConfig: raw.kubeConfig(api.token ?? undefined), raw, stop: () => raw.stop() };
}
