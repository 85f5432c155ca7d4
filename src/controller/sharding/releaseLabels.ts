import type { SchedulerLike } from 'rxjs';
import type { ResourceApi } from '../../client/write/ResourceApiTypes.js';
import type { KubernetesObject } from '../../types.js';

/**
 * A member's release of a drained object: a merge patch clearing both labels, on the
 * resourceVersion its store holds (a conflict means it changed since: the next run looks again).
 * The run waits for the answer at most `timeoutMs` (the renew deadline), then fails, and the
 * queue's retry sends the release again beside it. The transport bounds a request only by its
 * 30 s headers timeout, and a request can hang that long on a dead connection while the
 * member's Lease renewals go through on others: the key would stay draining, its new member
 * waiting, for 30 s. The first request is not aborted (only the run's own signal aborts it):
 * one that is merely slow (a webhook, a busy server) still lands, and aborting would not unsend
 * it anyway. Whichever lands first moves the object; the other meets a conflict, or the object
 * has left the member's store (the handshake reads either as the move it is).
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
  const patched = writer.patch(
    meta.name!,
    {
      metadata: {
        resourceVersion: meta.resourceVersion,
        labels: Object.fromEntries(labels.map((label) => [label, null])),
      },
    },
    { namespace: meta.namespace, type: 'merge', signal },
  );
  // Its outcome once the run stopped waiting is no one's: the store tells what happened.
  patched.catch(() => undefined);
  let timer: { unsubscribe(): void } | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = scheduler.schedule(
      () => reject(new Error(`the release of ${meta.name!} had no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([patched, late]);
  } finally {
    timer?.unsubscribe();
  }
}
