// The KubeConfig every benchmark client uses: the benchmark server's URL, its token, no CA.

/** A KubeConfig for `server` (TLS not verified: the benchmark servers' certificates are throwaway). */
export async function benchKubeConfig(server) {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'bench', server, skipTLSVerify: true }],
    users: [{ name: 'bench', token: 'bench-token' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  return kc;
}
