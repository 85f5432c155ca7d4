import {
  type Observable,
  BehaviorSubject,
  EMPTY,
  NEVER,
  Subject,
  asyncScheduler,
  defer,
  filter,
  finalize,
  ignoreElements,
  merge,
  share,
  switchMap,
  take,
  takeUntil,
  tap,
} from 'rxjs';
import { resourceApi } from '../../client/write/resourceApi.js';
import { createInformers } from '../../operators/createInformers.js';
import type { KubernetesObject, WatchOptions } from '../../types.js';
import { Action } from '../Action.js';
import type { ControllerConfig } from '../ControllerConfig.js';
import { electionSettings } from '../election/electionSettings.js';
import { electionOver } from '../election/electionOver.js';
import type { ReconcileReport } from '../ReconcileReport.js';
import { whileLeader } from '../whileLeader.js';
import { memberStep, peekMemberStep, type MemberKeys } from './handshake.js';
import { inheritedVersions } from './inheritedVersions.js';
import { LeaseObservations } from './LeaseObservations.js';
import { MemberFence } from './MemberFence.js';
import { claimHolder, leases, memberHolder, sharderLeaseApi } from './memberLease.js';
import { membership } from './membership.js';
import { releaseLabels } from './releaseLabels.js';
import { sharder } from './sharder.js';
import type { ShardingConfig } from './ShardingConfig.js';
import { RING_LABEL, shardNames } from './shardNames.js';

/** The sharder's label writes in flight at once, by default (see the bench's figures). */
const DEFAULT_WRITE_CONCURRENCY = 64;

/** What a member tells the controller it runs, beside its config. */
export interface MemberHooks<T> {
  /**
   * Whether the run of `key` (its object as the primary store holds it now) starts no
   * reconcile: a release or a skip. The queue starts such a run as soon as the key is free,
   * outside `concurrency`, `rateLimit` and read-your-own-writes' gate (even when the key was
   * already waiting for a worker or its gate): a member with 1 000 keys to hand over, or a
   * backlog of slow reconciles, releases them at once (through a queue of 10 workers and the
   * default 10 runs/s, a join that moves 1 000 keys took minutes).
   */
  express(object: T | undefined, key: string): boolean;
  /**
   * Those runs in flight at once: the member's `concurrency`, as many as before they had a
   * lane of their own (at 64, in the one-process bench, the extra requests in flight slowed
   * every other request, Lease renewals included, and members lost their Leases).
   */
  expressConcurrency: number;
}

/** An unsharded controller (what `controller` is without `sharding`), with a member's hooks. */
export type RunController<T extends KubernetesObject> = (
  config: ControllerConfig<T>,
  member?: MemberHooks<T>,
) => Observable<ReconcileReport>;

/**
 * `controller` as one member of a ring (`config.sharding`): see `ShardingConfig` and the guide.
 * The member runs an unsharded controller whose primary watch selects `shard.kube-rx.io/<ring>=
 * <identity>`, only while it holds its membership Lease; every member also stands for the
 * ring's sharder election and runs the sharder while elected.
 *
 * A run for a key starts the user's `reconcile` only when the key is this member's: the object
 * is in its store, labelled with it and not draining, or it was and has been deleted. A draining
 * object's run (the queue starts it only after the key's run in flight ended) clears both labels
 * instead: the handshake's answer. Owned objects carry their controller owner's member (the
 * sharder labels them, and labels them for the next member before it assigns the owner), so
 * the member's owned watches select its label too; `watches` sources are not sharded (each
 * member watches them whole), and their triggers for keys that are not its own start nothing.
 *
 * @example
 * controller({
 *   cluster: kc,
 *   for: { resource: configmaps },
 *   reconcile,
 *   sharding: { ring: 'reloader', namespace: 'operators', identity: process.env.POD_NAME! },
 * }).subscribe();
 */
export function shardedController<T extends KubernetesObject>(
  config: ControllerConfig<T>,
  sharding: ShardingConfig,
  run: RunController<T>,
): Observable<ReconcileReport> {
  const names = shardNames(sharding);
  const { identity, namespace } = sharding;
  const { cluster, reconcile, triggerOn, stop, scheduler = asyncScheduler } = config;
  const durations = {
    leaseDurationMs: sharding.leaseDurationMs,
    renewDeadlineMs: sharding.renewDeadlineMs,
    retryPeriodMs: sharding.retryPeriodMs,
  };
  const defined = Object.fromEntries(
    Object.entries(durations).filter(([, v]) => v !== undefined),
  ) as typeof durations;
  // RangeError or TypeError now, as leaderElection throws.
  const settings = electionSettings({
    namespace,
    name: names.memberLease(identity),
    identity,
    ...defined,
    ...(config.scheduler && { scheduler: config.scheduler }),
  });
  const { assignLabel, drainLabel } = names;
  const { writeConcurrency = DEFAULT_WRITE_CONCURRENCY } = sharding;
  if (!Number.isSafeInteger(writeConcurrency) || writeConcurrency < 1) {
    throw new RangeError(
      `controller: config.sharding.writeConcurrency must be a positive integer: ${String(writeConcurrency)}`,
    );
  }
  const primary = config.for;
  const owns = config.owns ?? [];
  const writer = resourceApi(cluster, primary.resource);

  return defer(() => {
    const { onLifecycle } = config;
    const informers =
      config.informers ??
      createInformers({
        scheduler,
        resilience: { onRefused: 'retry' },
        // The metrics' hook sees the member's watches (and the sharder's, while it is one).
        onLifecycle: onLifecycle && ((resource, event) => onLifecycle(resource, event)),
      });
    const inFlight = new Set<Promise<unknown>>();
    const fence = new MemberFence(settings.now, settings.renewDeadlineMs);

    // A graceful stop (`config.stop`): the member's controller drains (it has `stop` too), then
    // the membership ends (its Lease released once the runs settled) and so does the sharder.
    const drained = new Subject<void>();
    const memberNow = new BehaviorSubject(false);
    let stopping = false;
    const ended$ = stop
      ? merge(
          drained,
          stop.pipe(
            take(1),
            tap(() => (stopping = true)),
            switchMap(() => memberNow.pipe(filter((now) => !now))),
          ),
        ).pipe(take(1), share())
      : NEVER;

    // Every member watches the ring's Leases from its start (the upstream the sharder's store
    // shares): a member elected sharder judges a dead member's expiry from what it saw since.
    const observations = new LeaseObservations(settings.now);
    const observe$ = informers
      .store(cluster, leases, { namespace, labelSelector: `${RING_LABEL}=${names.ring}` })
      .pipe(
        tap((store) => observations.update(store)),
        ignoreElements(),
        takeUntil(ended$),
      );

    // Whether the incarnation about to start inherits a claim's moves (membership's onJoined).
    let inherits = false;
    const member = defer(() => {
      // Stopping: a membership won again starts no controller.
      if (stopping) {
        drained.next();
        return EMPTY;
      }
      // A new incarnation starts afresh: what the previous one released or saw is not ours.
      const keys: MemberKeys = { released: new Map(), seen: new Set() };
      // Its watches too: shared informers may linger (`createInformers({ linger })`), and a
      // watch of our label still open from before a partition replays the objects labelled for
      // us then, some since moved (our Lease expired meanwhile): runs of keys another member
      // holds. A term every object meets (the drain label is `true` or absent) makes each
      // request this incarnation's own, so its stores are listed afresh from the server.
      const own = `${drainLabel}!=${globalThis.crypto.randomUUID().slice(0, 8)}`;
      const selected = (options: WatchOptions | undefined): WatchOptions => ({
        ...options,
        labelSelector: [options?.labelSelector, names.selectorOf(identity), own]
          .filter(Boolean)
          .join(','),
      });
      const selector = selected(primary.options).labelSelector;
      const primaryOptions = { ...primary.options, labelSelector: selector };
      // Taken over from a claim: the versions the first list shows labelled for us are
      // released, not run (see MemberKeys.inherited). This subscription comes before the
      // controller's, so the list is known before any run decides; until then none does.
      const inheriting = inherits
        ? inheritedVersions(informers, cluster, primary.resource, primaryOptions, keys)
        : undefined;
      const listed = () => !inheriting || keys.inherited !== undefined;
      const hooks: MemberHooks<T> = {
        express: (object, key) =>
          fence.holds() && listed() && peekMemberStep(object, key, keys, identity, names) !== 'run',
        expressConcurrency: config.concurrency ?? 1,
      };
      return run(
        {
          ...config,
          informers,
          for: { ...primary, options: primaryOptions },
          // Owned objects carry their owner's member (the sharder labels them): 1/N of them too.
          owns: owns.map((source) => ({ ...source, options: selected(source.options) })),
          // The handshake's label must start a run whatever the user's triggerOn compares; and
          // any change of a draining object does: its release, sent on the version the store
          // held, met a conflict if the object changed since (a data write), and must be sent
          // again as the store shows the change, not after the key's growing backoff.
          triggerOn: (object) => {
            const labels = object.metadata?.labels ?? {};
            const draining = labels[drainLabel];
            return [
              triggerOn ? triggerOn(object) : defaultTrigger(object),
              draining,
              draining === undefined ? undefined : object.metadata?.resourceVersion,
            ];
          },
          reconcile: async (object, ctx) => {
            // Past the renew deadline with the timer that stops us not fired yet (a stall): the
            // Lease may be someone else's already. Nothing starts; the key waits (this
            // incarnation ends in a moment, or a renewal sent in time lands and it runs).
            if (!fence.holds() || !listed()) return Action.requeueAfter(settings.retryPeriodMs);
            const step = memberStep(object, ctx.key, keys, identity, names);
            if (step === 'skip') return;
            if (step === 'release') {
              const meta = object!.metadata!;
              await releaseLabels(
                writer,
                object!,
                [assignLabel, drainLabel],
                ctx.signal,
                settings.renewDeadlineMs,
                scheduler,
              );
              keys.released.set(ctx.key, meta.resourceVersion);
              return;
            }
            const running = reconcile(object, ctx);
            inFlight.add(running);
            const untrack = () => inFlight.delete(running);
            running.then(untrack, untrack);
            return running;
          },
        },
        hooks,
      ).pipe(finalize(() => inheriting?.unsubscribe()));
    });

    const member$ = membership(cluster, {
      namespace,
      identity,
      names,
      ...defined,
      ...(config.scheduler && { scheduler: config.scheduler }),
      settled: () => Promise.allSettled([...inFlight]),
      fence,
      onJoined: (inheriting) => (inherits = inheriting),
    }).pipe(
      tap((now) => memberNow.next(now)),
      takeUntil(ended$),
    );
    const sharder$ = sharder({
      cluster,
      informers,
      names,
      namespace,
      resource: primary.resource,
      options: watchScope(primary.options),
      owned: owns.map((source) => ({
        resource: source.resource,
        options: watchScope(source.options),
      })),
      settings: { ...settings, identity: claimHolder(identity) },
      writeConcurrency,
      observations,
      scheduler,
    }).pipe(
      // Leader election among the members, on the ring's Lease as the members' watch sees it
      // too: a sharder that stops (releasing the Lease) is followed at once, not at a
      // standby's next try up to a retry period later.
      whileLeader(
        electionOver(
          sharderLeaseApi(cluster, namespace, names),
          { ...settings, identity: memberHolder(identity) },
          (see) => observations.watch(`${namespace}/${names.sharderLease}`, see),
        ).pipe(takeUntil(ended$)),
      ),
    );
    return merge(
      member.pipe(tap({ complete: () => drained.next() }), whileLeader(member$)),
      sharder$,
      observe$,
    );
  });
}

/** What the sharder's metadata-only watch keeps of a source's options: the same objects. */
function watchScope(options: WatchOptions | undefined): WatchOptions {
  return {
    ...(options?.namespace && { namespace: options.namespace }),
    ...(options?.labelSelector && { labelSelector: options.labelSelector }),
    ...(options?.fieldSelector && { fieldSelector: options.fieldSelector }),
  };
}

/** controller's default triggerOn (kept here: controller.ts imports this file). */
function defaultTrigger(object: KubernetesObject): unknown {
  const metadata = object.metadata;
  return [
    metadata?.generation,
    metadata?.labels,
    metadata?.annotations,
    metadata?.deletionTimestamp,
    metadata?.finalizers,
  ];
}
