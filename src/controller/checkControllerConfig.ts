import type { KubernetesObject } from '../types.js';
import type { ControllerConfig, ControllerSource } from './ControllerConfig.js';
import { resourcePath } from '../objects/resourcePath.js';
import { assertObjectArgument } from '../objects/argumentChecks.js';

/**
 * Throws a TypeError naming the field unless `config` can run a controller: an object with a
 * cluster object, a `for` source with a valid resource, a `reconcile` function, and `owns`/`watches`
 * arrays when given. A controller is configuration, checked when it is made, so a typo fails at
 * once rather than as a crash inside the first watch.
 *
 * @example
 * checkControllerConfig({ cluster: kc, for: pods, reconcile: async () => {} });
 */
export function checkControllerConfig<T extends KubernetesObject>(
  config: ControllerConfig<T>,
): void {
  assertObjectArgument('controller', 'config', config);
  assertObjectArgument('controller', 'config.cluster', config.cluster);
  checkSource('config.for', config.for);
  if (typeof config.reconcile !== 'function') {
    throw new TypeError('controller: config.reconcile must be a function');
  }
  for (const name of ['owns', 'watches'] as const) {
    const value: unknown = config[name];
    if (value !== undefined && !Array.isArray(value)) {
      throw new TypeError(`controller: config.${name} must be an array`);
    }
    for (const each of (value as unknown[] | undefined) ?? []) {
      checkSource(`config.${name}[]`, each);
    }
  }
}

/**
 * A source of the controller: an object with a resource whose path is valid (a WatchError
 * BAD_REQUEST naming the segment otherwise, as `resource()` and `leaderElection` throw), and
 * options that are an object when given.
 */
function checkSource(name: string, source: unknown): void {
  assertObjectArgument('controller', name, source);
  const { resource, options } = source as ControllerSource<unknown>;
  assertObjectArgument('controller', `${name}.resource`, resource);
  assertObjectArgument('controller', `${name}.options`, options, true);
  resourcePath(resource, { namespace: options?.namespace });
}
