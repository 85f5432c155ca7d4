import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { FakeKubeApiServer } from '../../../src/testing/index.js';
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
  const raw = await RawServer.start((req, res) => {
    const headers = { ...req.headers, accept: 'application/json', host: target.host };
    const forwarded = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  return { kubeConfig: raw.kubeConfig(api.token ?? undefined), raw, stop: () => raw.stop() };
}
