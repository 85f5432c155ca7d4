import type { SchedulerLike } from 'rxjs';
import { linkedAbort } from '../../client/request/linkedAbort.js';
import type { ResourceApi } from '../../client/write/ResourceApiTypes.js';
import type { KubernetesObject } from '../../types.js';

/**
 * A member's release of a drained object: a merge patch clearing both labels, on the
 * resourceVersion its store holds (a conflict means it changed since: the next run looks again),
 * cut after `timeoutMs` (the renew deadline). The transport bounds a request only by its 30 s
 * headers timeout, and an API server that accepted a request can hold it that long (its queues,
 * a slow etcd) while the member's Lease renewals still go through: the key would stay draining,
 * its new member waiting, for 30 s. A release cut is sent again by the queue's retry; one that
 * had been applied then meets a conflict, or the object has left the member's store (the
 * handshake treats either as the move it is).
 *
 * @example
 * await releaseLabels(writer, object, [assignLabel, drainLabel], ctx.signal, 10_000, scheduler);
 */
export async function releaseLabels(
  writer: Pick<ResourceApi<KubernetesObject>, 'patch'>,
  object: KubernetesObject,
  labels: readonly string[],
  signal: AbortSignal,
  timeoutMs: number,
  scheduler: SchedulerLike,
): Promise<void> {
  const meta = object.metadata!;
  const { controller, unlink } = linkedAbort(signal);
  let late = false;
  const timer = scheduler.schedule(() => {
    late = true;
    controller.abort();
  }, timeoutMs);
  try {
    await writer.patch(
      meta.name!,
      {
        metadata: {
          resourceVersion: meta.resourceVersion,
          labels: Object.fromEntries(labels.map((label) => [label, null])),
        },
      },
      { namespace: meta.namespace, type: 'merge', signal: controller.signal },
    );
  } catch (error) {
    if (late && !signal.aborted) {
      throw new Error(`the release of ${meta.name!} had no answer within ${timeoutMs} ms`, {
        cause: error,
      });
    }
    throw error;
  } finally {
    timer.unsubscribe();
    unlink();
  }
}
