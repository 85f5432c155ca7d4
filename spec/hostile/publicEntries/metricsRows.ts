import { Registry } from 'prom-client';
import { controllerMetrics } from '../../../src/metrics/controllerMetrics.js';
import { watchMetrics } from '../../../src/metrics/watchMetrics.js';
import { pods } from '../../../src/objects/resources.js';
import { MISSING_OR_NOT_OBJECTS, NOT_OBJECTS, NOT_STRINGS, type Bad } from './badValues.js';
import { argument, type Contract, type EntryRow } from './table.js';

const typeError: Contract = { answer: 'throws', error: 'TypeError' };
const empty: Bad = { label: 'empty', value: '' };
/** Not a prom-client Registry: not an object, or an object without its methods. */
const NOT_REGISTRIES: Bad[] = [
  ...MISSING_OR_NOT_OBJECTS,
  { label: 'a plain object', value: { metrics: () => '' } },
];

/**
 * `kube-rx/metrics`: configuration, checked at call time (a TypeError naming the argument), so
 * a wrong registry or label fails where it is set up, not inside prom-client at a scrape.
 */
export const METRICS_ROWS: EntryRow[] = [
  {
    entry: 'controllerMetrics',
    arguments: [
      argument('registry', NOT_REGISTRIES, typeError, (bad) =>
        controllerMetrics(bad as never, { controller: 'web' }),
      ),
      argument('config', MISSING_OR_NOT_OBJECTS, typeError, (bad) =>
        controllerMetrics(new Registry(), bad as never),
      ),
      argument(
        'config.controller',
        [{ label: 'undefined', value: undefined }, ...NOT_STRINGS, empty],
        typeError,
        (bad) => controllerMetrics(new Registry(), { controller: bad as never }),
      ),
      argument('config.member', [...NOT_STRINGS, empty], typeError, (bad) =>
        controllerMetrics(new Registry(), { controller: 'web', member: bad as never }),
      ),
    ],
  },
  {
    entry: 'watchMetrics',
    arguments: [
      argument('registry', NOT_REGISTRIES, typeError, (bad) =>
        watchMetrics(bad as never, { resource: pods }),
      ),
      argument('config', MISSING_OR_NOT_OBJECTS, typeError, (bad) =>
        watchMetrics(new Registry(), bad as never),
      ),
      argument(
        'config.resource',
        [
          { label: 'undefined', value: undefined },
          ...NOT_OBJECTS.filter((b) => b.value !== 'pods'),
          empty,
        ],
        typeError,
        (bad) => watchMetrics(new Registry(), { resource: bad as never }),
      ),
      argument('config.resource.plural', [...NOT_STRINGS, empty], typeError, (bad) =>
        watchMetrics(new Registry(), { resource: { ...pods, plural: bad as never } }),
      ),
      argument('config.controller', [...NOT_STRINGS, empty], typeError, (bad) =>
        watchMetrics(new Registry(), { resource: pods, controller: bad as never }),
      ),
    ],
  },
];
