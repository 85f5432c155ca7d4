import { quoteValue } from '../../objects/argumentChecks.js';

/**
 * One entry of a status's `conditions` (metav1.Condition) as it is on the wire: the transition
 * time is an RFC 3339 string (client-node's `V1Condition` types it as a `Date`, which a JSON
 * answer never holds).
 */
export interface StatusCondition {
  /** e.g. `'Ready'`. */
  type: string;
  /** `'True'`, `'False'` or `'Unknown'`. */
  status: string;
  /** CamelCase, e.g. `'Provisioned'`. */
  reason: string;
  /** Human-readable. */
  message: string;
  /** When `status` last changed, RFC 3339 (`'2026-12-01T10:00:00Z'`). */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

/** A conditions entry as read from an object: its time a string (or a Date, if typed so). */
export interface ConditionInput extends Omit<StatusCondition, 'lastTransitionTime' | 'message'> {
  /** Human-readable; `''` when absent. */
  message?: string;
  /** When `status` last changed. */
  lastTransitionTime?: string | Date;
}

/** A conditions list as read from an object. */
export type ConditionsInput = ReadonlyArray<ConditionInput>;

/** What {@link setCondition} is given: a condition without its transition time. */
export interface ConditionUpdate {
  /** CamelCase or `domain/CamelCase`, e.g. `'Ready'`: one entry per type. */
  type: string;
  /** `'True'`, `'False'` or `'Unknown'`. */
  status: 'True' | 'False' | 'Unknown';
  /** Why, in CamelCase, e.g. `'NamespaceCreated'` (required by the API, as in metav1.Condition). */
  reason: string;
  /** A human-readable message (default `''`). */
  message?: string;
  /** The `metadata.generation` this condition was computed from. */
  observedGeneration?: number;
}

// metav1.Condition's validation (apimachinery meta/v1 types.go): the type is a qualified name,
// the reason a CamelCase word, both bounded.
const TYPE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const STATUSES = new Set(['True', 'False', 'Unknown']);

/**
 * Sets one condition in a status's `conditions` list, as apimachinery's
 * `meta.SetStatusCondition`: one entry per `type`; `lastTransitionTime` is `now` when the type is
 * new or its `status` changed, and kept otherwise (a changed reason or message is not a
 * transition). Returns a new list, or the same list (`===`) when nothing changed, so a
 * reconcile can skip a status write that would change nothing. The input list is never
 * modified. Throws a TypeError for a condition without a valid type, status or reason.
 *
 * @example
 * const conditions = setCondition(tenant.status?.conditions, {
 *   type: 'Ready', status: 'True', reason: 'Provisioned', message: 'namespace and quota exist',
 *   observedGeneration: tenant.metadata?.generation,
 * });
 * if (conditions !== tenant.status?.conditions) await ctx.api(tenants).status.apply(...);
 */
export function setCondition(
  conditions: ConditionsInput | undefined,
  update: ConditionUpdate,
  now: Date = new Date(),
): StatusCondition[] {
  const { type, status, reason, message = '', observedGeneration } = checked(update);
  checkedList(conditions);
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw new TypeError('setCondition: now must be a valid Date');
  const list = conditions ?? [];
  const index = list.findIndex((c) => c.type === type);
  const existing = index === -1 ? undefined : list[index];
  const transitioned = existing === undefined || existing.status !== status;
  const next: StatusCondition = {
    type,
    status,
    reason,
    message,
    lastTransitionTime:
      transitioned || existing.lastTransitionTime === undefined
        ? rfc3339(now)
        : rfc3339(existing.lastTransitionTime),
    ...(observedGeneration !== undefined && { observedGeneration }),
  };
  if (existing !== undefined && sameCondition(existing, next) && list.every(isWireShaped))
    return list as StatusCondition[];
  const others = list.map(wireShaped);
  return index === -1 ? [...others, next] : others.map((c, i) => (i === index ? next : c));
}

function isWireShaped(c: ConditionInput): c is StatusCondition {
  return typeof c.message === 'string' && typeof c.lastTransitionTime === 'string';
}

/** An entry as the API server would answer it: the time a string, the message present. */
function wireShaped(c: ConditionInput): StatusCondition {
  if (isWireShaped(c)) return c;
  return {
    ...c,
    message: c.message ?? '',
    lastTransitionTime: rfc3339(c.lastTransitionTime ?? new Date(0)),
  };
}

/** The conditions read so far: an array of objects, or absent (a TypeError naming them). */
function checkedList(conditions: unknown): void {
  // null as well: a status read from the server may carry `conditions: null`.
  if (conditions === undefined || conditions === null) return;
  if (!Array.isArray(conditions) || conditions.some((c) => typeof c !== 'object' || c === null))
    throw new TypeError('setCondition: conditions must be an array of condition objects');
}

function checked(update: ConditionUpdate): ConditionUpdate {
  if (typeof update !== 'object' || update === null)
    throw new TypeError('setCondition: the condition must be an object');
  const { type, status, reason, message, observedGeneration } = update;
  if (typeof type !== 'string' || type.length > 316 || !TYPE.test(type))
    throw new TypeError(
      `setCondition: invalid type ${quoteValue(type)}: a CamelCase name such as 'Ready'`,
    );
  if (typeof status !== 'string' || !STATUSES.has(status))
    throw new TypeError(
      `setCondition: invalid status ${quoteValue(status)} for ${type}: 'True', 'False' or 'Unknown'`,
    );
  if (typeof reason !== 'string' || reason.length > 1024 || !REASON.test(reason))
    throw new TypeError(
      `setCondition: invalid reason ${quoteValue(reason)} for ${type}: a CamelCase word such as 'Provisioned'`,
    );
  if (message !== undefined && (typeof message !== 'string' || message.length > 32768))
    throw new TypeError(`setCondition: the message of ${type} must be a string of at most 32768`);
  if (
    observedGeneration !== undefined &&
    (!Number.isSafeInteger(observedGeneration) || observedGeneration < 0)
  )
    throw new TypeError(`setCondition: observedGeneration of ${type} must be a whole number >= 0`);
  return update;
}

function sameCondition(a: ConditionInput, b: StatusCondition): boolean {
  return (
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.observedGeneration === b.observedGeneration &&
    typeof a.lastTransitionTime === 'string' &&
    a.lastTransitionTime === b.lastTransitionTime
  );
}

/** RFC 3339 in whole seconds, as the API server writes metav1.Time. */
function rfc3339(time: Date | string): string {
  if (typeof time === 'string') return time;
  return new Date(Math.floor(time.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
