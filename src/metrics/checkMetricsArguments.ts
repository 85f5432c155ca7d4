import { assertObjectArgument, describeType } from '../objects/argumentChecks.js';

/**
 * Throws a TypeError naming the argument unless `registry` is a prom-client Registry (checked by
 * the method metrics register through), so a wrong registry fails at the call, not inside
 * prom-client on the first scrape.
 *
 * @example
 * assertRegistry('controllerMetrics', registry);
 */
export function assertRegistry(entry: string, registry: unknown): void {
  assertObjectArgument(entry, 'registry', registry);
  if (typeof (registry as { registerMetric?: unknown }).registerMetric !== 'function') {
    throw new TypeError(`${entry}: registry must be a prom-client Registry`);
  }
}

/**
 * Throws a TypeError naming the label unless `value` is a non-empty string (or, when `optional`,
 * undefined): a label value is one fixed name, never derived from an object.
 *
 * @example
 * assertLabelValue('controllerMetrics', 'controller', config.controller);
 */
export function assertLabelValue(
  entry: string,
  name: string,
  value: unknown,
  optional = false,
): void {
  if (optional && value === undefined) return;
  if (typeof value !== 'string' || value === '') {
    const what = typeof value === 'string' ? 'empty' : describeType(value);
    throw new TypeError(
      `${entry}: ${name} must be a non-empty string${optional ? ' when given' : ''}, not ${what}`,
    );
  }
}

/**
 * Throws a TypeError naming `resource` unless it is a resource label (a string) or a ResourceRef
 * whose group, version and plural are strings.
 *
 * @example
 * assertResourceLabel('watchMetrics', config.resource);
 */
export function assertResourceLabel(entry: string, resource: unknown): void {
  if (typeof resource === 'string') return assertLabelValue(entry, 'resource', resource);
  assertObjectArgument(entry, 'resource', resource);
  const ref = resource as Record<string, unknown>;
  for (const field of ['version', 'plural'] as const) {
    assertLabelValue(entry, `resource.${field}`, ref[field]);
  }
  if (typeof ref.group !== 'string') {
    throw new TypeError(
      `${entry}: resource.group must be a string, not ${describeType(ref.group)}`,
    );
  }
}
