import { KubeConfig } from '@kubernetes/client-node';

/** A KubeConfig for `server` whose user's credentials come from running `plugin` with node. */
export function execKubeConfig(server: string, plugin: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [
      {
        name: 'u',
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [plugin],
          interactiveMode: 'Never',
        },
      },
    ],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}
