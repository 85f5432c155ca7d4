import { isMemberIdentity } from './shardNames.js';

/** A label change: a value to set, `null` to remove. */
export type LabelPatch = Record<string, string | null>;

/** What the sharder knows when it looks at one object. */
export interface SharderView {
  assignLabel: string;
  drainLabel: string;
  /** The member the hash ring over the live members gives the object. */
  desired: string;
  /** Whether a member holds its own Lease and the sharder does not. */
  live(member: string): boolean;
  /** Whether the sharder holds the member's Lease (expired or freed by its observation). */
  claimed(member: string): boolean;
}

/**
 * The sharder's half of the drain handshake, for one object's labels: the labels to write, or
 * `undefined` to wait. The states of an object, by its two labels:
 *
 * ```
 * unassigned ──assign(desired)──▶ assigned(m) ──m ≠ desired, m live: drain──▶ draining(m)
 *     ▲                               │                                          │
 *     │                               └── m not live and claimed: assign(desired)┤
 *     └──────────────── m clears both labels (its run in flight ended) ◀─────────┘
 * ```
 *
 * A label naming something that can never be a member is treated as no assignment. A member
 * that is not live but not yet claimed may still be acting: wait.
 *
 * @example
 * sharderStep({ 'shard.kube-rx.io/web': 'pod-1' }, { ...view, desired: 'pod-2' });
 * // { 'drain.shard.kube-rx.io/web': 'true' } while pod-1 is live
 */
export function sharderStep(
  labels: Readonly<Record<string, string>>,
  view: SharderView,
): LabelPatch | undefined {
  const { assignLabel, drainLabel, desired } = view;
  const current = labels[assignLabel];
  const draining = labels[drainLabel] !== undefined;
  const assign = (): LabelPatch => ({
    [assignLabel]: desired,
    ...(draining && { [drainLabel]: null }),
  });
  if (!current || !isMemberIdentity(current)) return assign();
  if (!view.live(current)) return view.claimed(current) ? assign() : undefined;
  if (current !== desired && !draining) return { [drainLabel]: 'true' };
  return undefined;
}

/** What a member does with a run of one of its keys. */
export type MemberStep = 'run' | 'skip' | 'release';

/** A member's memory of its keys within one incarnation. */
export interface MemberKeys {
  /** Keys it released, with the resourceVersion the store held then. */
  released: Map<string, string | undefined>;
  /** Keys it saw assigned to it (a deletion of one of them is its to clean up). */
  seen: Set<string>;
  /**
   * Of an incarnation that inherits a claim's moves (see `membership`'s `onJoined`): the
   * version of each object its first list found labelled for it. A move the claim sent on
   * that version may still land; released, the version changes and such a move meets a
   * conflict. `undefined` until that list is known (no run decides before it).
   */
  inherited?: Map<string, string | undefined>;
}

/** What the handshake reads of an object: its labels and version. */
type LabelledObject = { metadata?: { labels?: Record<string, string>; resourceVersion?: string } };

/** The ring's two labels, as a member reads them. */
type MemberLabels = { assignLabel: string; drainLabel: string };

/**
 * The member's half, for a run of `key` about to start with `object` (as its label-selected
 * store holds it): run the user's reconcile, skip it (not this member's), or release the key
 * (draining: the queue starts this run only after the key's previous run ended, so clearing
 * both labels now hands the key over with nothing of ours in flight; or inherited from a
 * claim at the version found then, see {@link MemberKeys.inherited}).
 *
 * - Released by us and the store still shows the version we released: skip (the store has not
 *   seen the object leave yet; acting would overlap with the next member).
 * - Gone from the store: run (with `undefined`: deleted) only if it was ours and never released
 *   (a release tried counts, answered or not); a trigger from an owned object for someone else's
 *   key starts nothing.
 *
 * @example
 * memberStep(undefined, 'app/web', keys, identity, names); // 'skip' unless app/web was ours
 */
export function memberStep(
  object: LabelledObject | undefined,
  key: string,
  keys: MemberKeys,
  identity: string,
  labelsOf: MemberLabels,
): MemberStep {
  const step = peekMemberStep(object, key, keys, identity, labelsOf);
  if (object === undefined) {
    if (step === 'run') keys.seen.delete(key);
    return step;
  }
  if (step === 'skip') return step;
  // Ours at another version than the one released (if any): released no more.
  keys.released.delete(key);
  // From the moment the release is sent the key may be the next member's: an answer lost
  // after the server applied it (a 5xx after the commit, a reset) fails the run, and the
  // object leaving our store must then read as the move it may be, not as a deletion of ours.
  if (step === 'release') keys.seen.delete(key);
  else keys.seen.add(key);
  return step;
}

/**
 * What {@link memberStep} would answer, changing nothing: how the member's queue tells a run
 * that starts no reconcile (a release, a skip), which it starts at once, outside its
 * concurrency and rate limit.
 *
 * @example
 * peekMemberStep(draining, 'app/web', keys, identity, names); // 'release'
 */
export function peekMemberStep(
  object: LabelledObject | undefined,
  key: string,
  keys: MemberKeys,
  identity: string,
  labelsOf: MemberLabels,
): MemberStep {
  if (object === undefined) return keys.seen.has(key) ? 'run' : 'skip';
  const meta = object.metadata ?? {};
  if (meta.labels?.[labelsOf.assignLabel] !== identity) return 'skip';
  if (keys.released.has(key) && keys.released.get(key) === meta.resourceVersion) return 'skip';
  if (meta.labels?.[labelsOf.drainLabel] !== undefined) return 'release';
  const inherited = keys.inherited;
  return inherited?.has(key) && inherited.get(key) === meta.resourceVersion ? 'release' : 'run';
}
