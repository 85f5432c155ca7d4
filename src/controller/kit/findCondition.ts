import type { ConditionInput, ConditionsInput } from './setCondition.js';

/**
 * The condition of `type` in a conditions list, or `undefined` (apimachinery's
 * `meta.FindStatusCondition`).
 *
 * @example
 * findCondition(deployment.status?.conditions, 'Available')?.reason; // 'MinimumReplicasAvailable'
 */
export function findCondition<C extends ConditionInput>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Whether the condition of `type` is `'True'` (`meta.IsStatusConditionTrue`); false when it is
 * absent, `'False'` or `'Unknown'`.
 *
 * @example
 * if (!isConditionTrue(tenant.status?.conditions, 'Ready')) return Action.requeueAfter(5_000);
 */
export function isConditionTrue(conditions: ConditionsInput | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}
