import type { KubeConfig } from '@kubernetes/client-node';
import { fromList } from '../../../src/sources/fromList.js';
import { fromPodLogs } from '../../../src/sources/fromPodLogs.js';
import { fromWatch } from '../../../src/sources/fromWatch.js';
import { createInformers } from '../../../src/operators/createInformers.js';
import { resilientWatch } from '../../../src/operators/resilientWatch.js';
import { pods } from '../../../src/objects/resources.js';
import { metadataOnly } from '../../../src/shapes/metadataOnly.js';
import { watchResource } from '../../../src/watch.js';
import type { ResourceRef } from '../../../src/types.js';
import {
  BAD_SEGMENTS,
  HOSTILE_STRINGS,
  MISSING_OR_NOT_OBJECTS,
  NOT_COUNTS,
  NOT_FUNCTIONS,
  NOT_OBJECTS,
  NOT_STRINGS,
} from './badValues.js';
import { argument, type ArgumentCase, type Contract, type EntryRow } from './table.js';

type RequestCall = (
  cluster: unknown,
  resource: unknown,
  options: unknown,
  kc: KubeConfig,
) => unknown;

const ref = (fields: Record<string, unknown>) => ({
  group: '',
  version: 'v1',
  plural: 'pods',
  ...fields,
});

/**
 * The arguments every request entry shares (cluster, resource and its fields, options and the
 * fields every request reads), answered in the entry's way: the request's BAD_REQUEST, or
 * UNAUTHORIZED_ERROR when there is no cluster to take credentials from (DESIGN's step 3).
 */
function requestArguments(answer: Contract['answer'], call: RequestCall): ArgumentCase[] {
  const as = (errorType: 'BAD_REQUEST' | 'UNAUTHORIZED_ERROR') =>
    ({ answer, errorType }) as Contract;
  const field =
    (name: string) =>
    (bad: unknown, { kc }: { kc: KubeConfig }) =>
      call(kc, pods, { [name]: bad }, kc);
  return [
    argument('cluster', MISSING_OR_NOT_OBJECTS, as('UNAUTHORIZED_ERROR'), (bad, { kc }) =>
      call(bad, pods, {}, kc),
    ),
    argument('resource', MISSING_OR_NOT_OBJECTS, as('BAD_REQUEST'), (bad, { kc }) =>
      call(kc, bad, {}, kc),
    ),
    argument('resource.plural', BAD_SEGMENTS, as('BAD_REQUEST'), (bad, { kc }) =>
      call(kc, ref({ plural: bad }), {}, kc),
    ),
    argument('resource.version', BAD_SEGMENTS, as('BAD_REQUEST'), (bad, { kc }) =>
      call(kc, ref({ version: bad }), {}, kc),
    ),
    argument(
      'resource.group',
      BAD_SEGMENTS.filter((b) => b.value !== ''),
      as('BAD_REQUEST'),
      (bad, { kc }) => call(kc, ref({ group: bad }), {}, kc),
    ),
    argument('options', NOT_OBJECTS, as('BAD_REQUEST'), (bad, { kc }) => call(kc, pods, bad, kc)),
    argument('options.namespace', BAD_SEGMENTS, as('BAD_REQUEST'), field('namespace')),
    argument('options.transform', NOT_FUNCTIONS, as('BAD_REQUEST'), field('transform')),
    // A metadata-only reference takes the same checks (its Accept header is no way around them).
    argument('metadataOnly(resource).plural', HOSTILE_STRINGS, as('BAD_REQUEST'), (bad, { kc }) =>
      call(kc, metadataOnly(ref({ plural: bad }) as ResourceRef<unknown>), {}, kc),
    ),
  ];
}

/** The watch options a list does not have. */
function watchOptionArguments(answer: Contract['answer'], call: RequestCall): ArgumentCase[] {
  const as = { answer, errorType: 'BAD_REQUEST' } as Contract;
  const field =
    (name: string) =>
    (bad: unknown, { kc }: { kc: KubeConfig }) =>
      call(kc, pods, { [name]: bad }, kc);
  return [
    argument('options.timeoutSeconds', NOT_COUNTS, as, field('timeoutSeconds')),
    argument('options.maxLineBytes', NOT_COUNTS, as, field('maxLineBytes')),
    argument('options.labelSelector', [...NOT_OBJECTS.slice(4)], as, field('labelSelector')),
    argument(
      'options.resourceVersionMatch',
      [...NOT_STRINGS, ...HOSTILE_STRINGS],
      as,
      field('resourceVersionMatch'),
    ),
  ];
}

const watchLike = (answer: Contract['answer'], call: RequestCall) => [
  ...requestArguments(answer, call),
  ...watchOptionArguments(answer, call),
];

/** The entries that send a request: each answers through the request's own error path. */
export const REQUEST_ROWS: EntryRow[] = [
  {
    entry: 'watchResource',
    arguments: watchLike('error-event', (c, r, o) =>
      watchResource(c as KubeConfig, r as never, o as never),
    ),
  },
  {
    entry: 'fromWatch',
    arguments: watchLike('error-event', (c, r, o) =>
      fromWatch(c as KubeConfig, r as never, o as never),
    ),
  },
  {
    entry: 'fromWatch(...).list()',
    arguments: requestArguments('error-notification', (c, r, o) =>
      fromWatch(c as KubeConfig, r as never, o as never).list(),
    ),
  },
  {
    entry: 'fromList',
    arguments: [
      ...requestArguments('error-notification', (c, r, o) =>
        fromList(c as KubeConfig, r as never, o as never),
      ),
      argument(
        'options.limit',
        NOT_COUNTS,
        { answer: 'error-notification', errorType: 'BAD_REQUEST' },
        (bad, { kc }) => fromList(kc, pods, { limit: bad as number }),
      ),
    ],
  },
  {
    entry: 'resilientWatch',
    arguments: [
      ...watchLike('error-notification', (c, r, o) =>
        resilientWatch(c as KubeConfig, r as never, o as never),
      ),
      argument('config', NOT_OBJECTS, { answer: 'throws', error: 'TypeError' }, (bad, { kc }) =>
        resilientWatch(kc, pods, {}, bad as never),
      ),
    ],
  },
  {
    entry: 'createInformers().events',
    arguments: watchLike('error-notification', (c, r, o) =>
      createInformers().events(c as KubeConfig, r as never, o as never),
    ),
  },
  {
    entry: 'createInformers().store',
    arguments: [
      ...watchLike('error-notification', (c, r, o) =>
        createInformers().store(c as KubeConfig, r as never, o as never),
      ),
      argument(
        'storeConfig',
        NOT_OBJECTS,
        { answer: 'throws', error: 'TypeError' },
        (bad, { kc }) => createInformers().store(kc, pods, {}, bad as never),
      ),
    ],
  },
  {
    entry: 'fromPodLogs',
    arguments: podLogArguments(),
  },
];

function podLogArguments(): ArgumentCase[] {
  const as = (errorType: 'BAD_REQUEST' | 'UNAUTHORIZED_ERROR') =>
    ({ answer: 'error-notification', errorType }) as Contract;
  const valid = { namespace: 'default', name: 'web-1' };
  const field =
    (name: string) =>
    (bad: unknown, { kc }: { kc: KubeConfig }) =>
      fromPodLogs(kc, { ...valid, [name]: bad });
  return [
    argument('cluster', MISSING_OR_NOT_OBJECTS, as('UNAUTHORIZED_ERROR'), (bad) =>
      fromPodLogs(bad as KubeConfig, valid),
    ),
    argument('options', MISSING_OR_NOT_OBJECTS, as('BAD_REQUEST'), (bad, { kc }) =>
      fromPodLogs(kc, bad as never),
    ),
    argument('options.namespace', BAD_SEGMENTS, as('BAD_REQUEST'), field('namespace')),
    argument('options.name', BAD_SEGMENTS, as('BAD_REQUEST'), field('name')),
    argument('options.container', BAD_SEGMENTS, as('BAD_REQUEST'), field('container')),
    argument('options.tailLines', NOT_COUNTS, as('BAD_REQUEST'), field('tailLines')),
    argument('options.sinceSeconds', NOT_COUNTS, as('BAD_REQUEST'), field('sinceSeconds')),
    argument('options.maxLineBytes', NOT_COUNTS, as('BAD_REQUEST'), field('maxLineBytes')),
  ];
}
