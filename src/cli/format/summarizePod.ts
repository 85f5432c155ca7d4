import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';

/** What kubectl shows about a pod: its status word, ready containers and restarts. */
export interface PodSummary {
  /** `Running`, `Pending`, `ContainerCreating`, `CrashLoopBackOff`, `Init:0/1`, `Terminating`... */
  status: string;
  /** Ready containers / containers, e.g. `1/2`. */
  ready: string;
  /** Whether every container is ready (and there is at least one). */
  allReady: boolean;
  /** Restarts of every container, summed. */
  restarts: number;
}

/**
 * Summarises a pod the way `kubectl get pods` does: the most telling reason wins over the phase
 * (a waiting container's `CrashLoopBackOff` says more than `Running`), init containers show as
 * `Init:...`, and a pod being deleted is `Terminating`.
 *
 * @example
 * summarizePod(pod).status; // 'CrashLoopBackOff'
 */
export function summarizePod(pod: V1Pod): PodSummary {
  const containers = pod.spec?.containers?.length ?? 0;
  const statuses = pod.status?.containerStatuses ?? [];
  const readyCount = statuses.filter((s) => s.ready).length;
  const restarts = statuses.reduce((sum, s) => sum + (s.restartCount ?? 0), 0);
  const total = Math.max(containers, statuses.length);
  return {
    status: statusWord(pod, statuses),
    ready: `${readyCount}/${total}`,
    allReady: total > 0 && readyCount === total,
    restarts,
  };
}

function statusWord(pod: V1Pod, statuses: V1ContainerStatus[]): string {
  if (pod.metadata?.deletionTimestamp) return 'Terminating';
  let reason = pod.status?.reason || pod.status?.phase || 'Unknown';

  const init = initStatus(pod);
  if (init !== undefined) return init;

  let running = false;
  // kubectl looks at containers last to first, so the first container's reason wins.
  for (const s of [...statuses].reverse()) {
    if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
    else if (s.state?.terminated?.reason) reason = s.state.terminated.reason;
    else if (s.state?.terminated) {
      const t = s.state.terminated;
      reason = t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode}`;
    } else if (s.ready && s.state?.running) running = true;
  }
  if (reason === 'Completed' && running) reason = 'Running';
  return reason;
}

/** `Init:...` while an init container has not finished, else undefined. */
function initStatus(pod: V1Pod): string | undefined {
  const inits = pod.status?.initContainerStatuses ?? [];
  const total = pod.spec?.initContainers?.length ?? inits.length;
  for (const [i, s] of inits.entries()) {
    const terminated = s.state?.terminated;
    if (terminated && terminated.exitCode === 0) continue;
    if (terminated) return `Init:${terminated.reason || `ExitCode:${terminated.exitCode}`}`;
    const waiting = s.state?.waiting?.reason;
    if (waiting && waiting !== 'PodInitializing') return `Init:${waiting}`;
    return `Init:${i}/${total}`;
  }
  return undefined;
}
