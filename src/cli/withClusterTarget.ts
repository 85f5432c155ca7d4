import type { ClusterTarget } from './clusterTarget.js';
import type { CliIo } from './CliIo.js';

/** The values of the flags every command takes (`COMMON_OPTIONS`) that choose a cluster. */
export interface ClusterFlags {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  demo?: boolean | undefined;
}

/**
 * Resolves the cluster the flags name (see `resolveClusterTarget`), runs `use` on it, and
 * stops the demo cluster, if one was started, whatever `use` does. The Kubernetes client is
 * loaded only now: it takes half a second, which `--help` and a mistyped flag should not wait for.
 *
 * @example
 * return withClusterTarget(values, io, async (target) => { ...; return 0; });
 */
export async function withClusterTarget(
  flags: ClusterFlags,
  io: CliIo,
  use: (target: ClusterTarget) => Promise<number>,
  onDemoFault?: (description: string) => void,
): Promise<number> {
  const { resolveClusterTarget } = await import('./clusterTarget.js');
  const target = await resolveClusterTarget({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    demo: flags.demo,
    env: io.env,
    warn: io.warn,
    onDemoFault,
  });
  try {
    return await use(target);
  } finally {
    await target.close();
  }
}
