import { WatchError } from '../../WatchError.js';
import { assertObjectArgument, quoteValue } from '../../objects/argumentChecks.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';
import type { Action } from '../Action.js';

/** What `finalizer` needs of a reconcile's context: the primary resource and a way to patch it. */
export interface FinalizerContext {
  /** The resource of the objects the finalizer guards (the controller's primary resource). */
  resource: ResourceRef<any>;
  /** The run's abort signal. */
  signal: AbortSignal;
  /** The write API bound to the controller's cluster (read-your-own-writes included). */
  api(resource: ResourceRef<any>): {
    /** A JSON patch of one object (what `resourceApi(...).patch` is). */
    patch(
      name: string,
      patch: unknown,
      options: { namespace?: string; type: 'json'; signal?: AbortSignal },
    ): Promise<unknown>;
  };
}

/** The two sides of a finalizer: what to do while the object lives, and before it goes. */
export interface FinalizerHandlers<T> {
  /** The object exists and carries the finalizer: bring the world to its desired state. */
  apply(object: T): Promise<Action | void>;
  /** The object is being deleted: undo what the garbage collector cannot; then it may go. */
  cleanup(object: T): Promise<Action | void>;
}

/**
 * The finalizer dance of every operator that owns something outside the object's namespace
 * (kube-rs's `finalizer()`):
 * - an object not being deleted that lacks `name` in `metadata.finalizers` gets it first, by a
 *   JSON patch that tests the current list (a concurrent change is a conflict: the run fails,
 *   backs off and runs again on fresh state, never overwriting the other writer's list); then
 *   `apply` runs with the object the server returned;
 * - an object being deleted (`deletionTimestamp`) that carries `name` runs `cleanup`, and only
 *   once it succeeds is `name` removed, the same way; a failing cleanup keeps the finalizer and
 *   the object, and the run backs off like any failed run;
 * - an object being deleted without `name` (deleted before it ever got it), or one already gone
 *   (`undefined`), needs nothing.
 *
 * ```
 * object:   A(no finalizer)---M(finalizer)---M(deletionTimestamp)---D
 * runs:     [add name, apply]  [apply]        [cleanup, remove name]
 * ```
 *
 * @example
 * reconcile: (tenant, ctx) =>
 *   finalizer(ctx, tenant, 'tenants.example.com/cleanup', {
 *     apply: (t) => provisionNamespace(t, ctx),
 *     cleanup: (t) => ctx.api(namespaces).delete(`tenant-${t.metadata!.name}`).then(() => undefined),
 *   }),
 */
export async function finalizer<T extends KubernetesObject>(
  ctx: FinalizerContext,
  object: T | undefined,
  name: string,
  handlers: FinalizerHandlers<T>,
): Promise<Action | void> {
  // quoteValue, not JSON.stringify: a name may be huge, hold C1 controls or be a Symbol.
  if (typeof name !== 'string' || !QUALIFIED.test(name) || name.length > 316)
    throw new TypeError(
      `finalizer: invalid name ${quoteValue(name)}: a qualified name such as 'example.com/cleanup'`,
    );
  if (typeof handlers?.apply !== 'function' || typeof handlers.cleanup !== 'function')
    throw new TypeError('finalizer: apply and cleanup must be functions');
  // Checked before the object is read, so that a bad one is named rather than crashing later.
  assertObjectArgument('finalizer', 'ctx', ctx);
  if (typeof ctx.api !== 'function') throw new TypeError('finalizer: ctx.api must be a function');
  assertObjectArgument('finalizer', 'object', object, true);
  if (object === undefined) return;
  const finalizers = object.metadata?.finalizers;
  const index = finalizers?.indexOf(name) ?? -1;
  if (object.metadata?.deletionTimestamp) {
    if (index === -1) return;
    const action = await handlers.cleanup(object);
    await patch(ctx, object, [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: name },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ]);
    return action;
  }
  if (index !== -1) return handlers.apply(object);
  const added = await patch(
    ctx,
    object,
    finalizers === undefined || finalizers.length === 0
      ? [
          // `null` tests true for an absent list; an empty list is there and tests as []
          { op: 'test', path: '/metadata/finalizers', value: finalizers === undefined ? null : [] },
          { op: 'add', path: '/metadata/finalizers', value: [name] },
        ]
      : [
          { op: 'test', path: '/metadata/finalizers', value: finalizers },
          { op: 'add', path: '/metadata/finalizers/-', value: name },
        ],
  );
  return handlers.apply(added as T);
}

const QUALIFIED =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Patches the object's finalizers; a failed test (someone else changed them) is a conflict. */
async function patch(
  ctx: FinalizerContext,
  object: KubernetesObject,
  operations: object[],
): Promise<unknown> {
  const { name, namespace } = object.metadata ?? {};
  try {
    return await ctx
      .api(ctx.resource)
      .patch(name!, operations, { namespace, type: 'json', signal: ctx.signal });
  } catch (error) {
    if (error instanceof WatchError && error.statusCode === 422 && /test/i.test(error.message))
      throw new WatchError(
        `the finalizers of ${namespace ? `${namespace}/` : ''}${name} changed meanwhile: run again on fresh state (${error.message})`,
        {
          ...error,
          errorType: 'CONFLICT' as never,
          statusCode: 409,
          reason: 'Conflict',
          cause: error,
        },
      );
    throw error;
  }
}
