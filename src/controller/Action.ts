/**
 * What a reconcile asks for when it is done: nothing (the key waits for its next trigger), or
 * to run again after a delay (`requeueAfterMs`), as kube-rs's `Action::requeue` and
 * controller-runtime's `Result{RequeueAfter}`.
 *
 * @example
 * reconcileQueue(async (key) => (await isReady(key) ? undefined : Action.requeueAfter(5_000)));
 */
export interface Action {
  /** Run the key again this many milliseconds after this run ends (an earlier trigger wins). */
  requeueAfterMs?: number;
}

/** Builders of {@link Action}. */
export const Action = {
  /** Run the key again `ms` milliseconds after this run ends. */
  requeueAfter(ms: number): Action {
    return { requeueAfterMs: ms };
  },
};
