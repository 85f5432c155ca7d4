import type { KubeConfig } from '@kubernetes/client-node';
import { resourceApi } from '../../../src/client/write/resourceApi.js';
import { pods } from '../../../src/objects/resources.js';
import {
  BAD_SEGMENTS,
  HOSTILE_STRINGS,
  MISSING_OR_NOT_OBJECTS,
  NOT_COUNTS,
  NOT_OBJECTS,
  NOT_STRINGS,
  type Bad,
} from './badValues.js';
import { argument, type ArgumentCase, type Contract, type EntryRow } from './table.js';

/** Every method of a `ResourceApi` answers a bad argument with a rejected promise. */
const badRequest: Contract = { answer: 'rejects', error: 'BAD_REQUEST' };

const undef: Bad = { label: 'undefined', value: undefined };
const ns = { namespace: 'default' };
const pod = () => ({ metadata: { name: 'web', namespace: 'default' } });
/** A field manager is any printable text of at most 128 bytes: only these are bad. */
const BAD_MANAGERS: Bad[] = [
  ...NOT_STRINGS,
  { label: '129 characters', value: 'x'.repeat(129) },
  ...HOSTILE_STRINGS.filter((b) => /100 000|control/.test(b.label)),
];
const NOT_BOOLEANS: Bad[] = [
  { label: 'a string', value: 'true' },
  { label: 'a number', value: 1 },
  { label: 'null', value: null },
  { label: 'an object', value: {} },
];
/** What an abort signal option may get instead of an AbortSignal. */
const NOT_SIGNALS: Bad[] = [
  { label: 'null', value: null },
  { label: 'a string', value: 'abort' },
  { label: 'a plain object', value: { aborted: false } },
];
const NOT_PATCH_TYPES: Bad[] = [
  undef,
  ...NOT_STRINGS,
  ...HOSTILE_STRINGS,
  { label: '"apply"', value: 'apply' },
];

type Api = ReturnType<typeof resourceApi>;
type Call = (api: Api, bad: unknown) => unknown;

/** Calls a method on an API over the test server's cluster and the pods ref. */
const on =
  (call: Call) =>
  (bad: unknown, { kc }: { kc: KubeConfig }) =>
    call(resourceApi(kc, pods as never), bad);

/** `options` itself, and the fields every method reads: namespace and signal. */
function optionArguments(entry: string, call: Call, base: object): ArgumentCase[] {
  const field = (name: string) => on((api, bad) => call(api, { ...base, [name]: bad }));
  return [
    argument(`${entry} options`, NOT_OBJECTS, badRequest, on(call), /\boptions\b/),
    argument(`${entry} options.namespace`, BAD_SEGMENTS, badRequest, field('namespace')),
    argument(`${entry} options.signal`, NOT_SIGNALS, badRequest, field('signal')),
  ];
}

/** The query options of a write (apply has its own fieldManager rows). */
function writeOptionArguments(entry: string, call: Call, base: object): ArgumentCase[] {
  const field = (name: string) => on((api, bad) => call(api, { ...base, [name]: bad }));
  return [
    argument(`${entry} options.fieldManager`, BAD_MANAGERS, badRequest, field('fieldManager')),
    argument(`${entry} options.dryRun`, NOT_BOOLEANS, badRequest, field('dryRun')),
    argument(`${entry} options.force`, NOT_BOOLEANS, badRequest, field('force')),
  ];
}

/** A method that takes a name and options (get, delete, and the subresources' get). */
function nameMethod(entry: string, call: (api: Api, name: unknown, options: unknown) => unknown) {
  return [
    argument(
      `${entry} name`,
      [undef, ...BAD_SEGMENTS],
      badRequest,
      on((api, bad) => call(api, bad, ns)),
    ),
    ...optionArguments(entry, (api, options) => call(api, 'web', options), ns),
  ];
}

/** A method that takes a name, a patch and options (patch and its subresources'). */
function patchMethod(
  entry: string,
  call: (api: Api, name: unknown, patch: unknown, options: unknown) => unknown,
) {
  const base = { ...ns, type: 'merge' };
  return [
    argument(
      `${entry} name`,
      [undef, ...BAD_SEGMENTS],
      badRequest,
      on((api, bad) => call(api, bad, {}, base)),
    ),
    argument(
      `${entry} patch`,
      MISSING_OR_NOT_OBJECTS,
      badRequest,
      on((api, bad) => call(api, 'web', bad, base)),
    ),
    argument(
      `${entry} options.type`,
      NOT_PATCH_TYPES,
      badRequest,
      on((api, bad) => call(api, 'web', {}, { ...ns, type: bad })),
    ),
    ...optionArguments(entry, (api, options) => call(api, 'web', {}, options), base),
    ...writeOptionArguments(entry, (api, options) => call(api, 'web', {}, options), base),
  ];
}

/** A method that takes a whole object or configuration (create, replace, apply). */
function objectMethod(
  entry: string,
  call: (api: Api, object: unknown, options: unknown) => unknown,
  base: object = {},
) {
  return [
    argument(
      `${entry} object`,
      MISSING_OR_NOT_OBJECTS,
      badRequest,
      on((api, bad) => call(api, bad, base)),
      /\b(object|configuration)\b/,
    ),
    argument(
      `${entry} object.metadata`,
      MISSING_OR_NOT_OBJECTS,
      badRequest,
      on((api, bad) => call(api, { metadata: bad }, base)),
    ),
    argument(
      `${entry} object.metadata.name`,
      BAD_SEGMENTS.filter((b) => b.value !== ''),
      badRequest,
      on((api, bad) => call(api, { metadata: { name: bad, namespace: 'default' } }, base)),
    ),
    argument(
      `${entry} object.metadata.namespace`,
      BAD_SEGMENTS,
      badRequest,
      on((api, bad) => call(api, { metadata: { name: 'web', namespace: bad } }, base)),
    ),
    ...optionArguments(entry, (api, options) => call(api, pod(), options), base),
    ...writeOptionArguments(entry, (api, options) => call(api, pod(), options), base),
  ];
}

/** Every method once, over a cluster and a ref given to `resourceApi` (checked when called). */
const EVERY_METHOD: Array<[string, (api: Api) => unknown]> = [
  ['get', (api) => api.get('web', ns)],
  ['list', (api) => api.list(ns)],
  ['create', (api) => api.create(pod())],
  ['apply', (api) => api.apply(pod() as never, { fieldManager: 'me' })],
  ['delete', (api) => api.delete('web', ns)],
];

/** `resourceApi(cluster, resource)` checks nothing up front: each method's call answers. */
function apiArguments(): ArgumentCase[] {
  return EVERY_METHOD.flatMap(([method, call]) => [
    argument(
      `resourceApi(cluster).${method} cluster`,
      MISSING_OR_NOT_OBJECTS,
      { answer: 'rejects', error: 'UNAUTHORIZED_ERROR' },
      (bad) => call(resourceApi(bad as never, pods as never)),
      /\b(cluster|credentials|kubeconfig)\b/i,
    ),
    argument(
      `resourceApi(resource).${method} resource`,
      MISSING_OR_NOT_OBJECTS,
      badRequest,
      (bad, { kc }) => call(resourceApi(kc, bad as never)),
    ),
    argument(
      `resourceApi(resource.plural).${method} plural`,
      BAD_SEGMENTS,
      badRequest,
      (bad, { kc }) => call(resourceApi(kc, { ...pods, plural: bad } as never)),
    ),
  ]);
}

const listField = (name: string) => on((api, bad) => api.list({ [name]: bad } as never));

/** `resourceApi` and every method of what it returns. */
export const WRITE_ROWS: EntryRow[] = [
  { entry: 'resourceApi', arguments: apiArguments() },
  {
    entry: 'resourceApi().get',
    arguments: nameMethod('get', (api, n, o) => api.get(n as string, o as never)),
  },
  {
    entry: 'resourceApi().list',
    arguments: [
      argument(
        'list options',
        NOT_OBJECTS,
        badRequest,
        on((api, bad) => api.list(bad as never)),
        /\boptions\b/,
      ),
      argument('list options.namespace', BAD_SEGMENTS, badRequest, listField('namespace')),
      argument('list options.limit', NOT_COUNTS, badRequest, listField('limit')),
      argument(
        'list options.labelSelector',
        NOT_OBJECTS.slice(4),
        badRequest,
        listField('labelSelector'),
      ),
      argument('list options.signal', NOT_SIGNALS, badRequest, listField('signal')),
    ],
  },
  {
    entry: 'resourceApi().create',
    arguments: objectMethod('create', (api, o, p) => api.create(o as never, p as never)),
  },
  {
    entry: 'resourceApi().replace',
    arguments: objectMethod('replace', (api, o, p) => api.replace(o as never, p as never)),
  },
  {
    entry: 'resourceApi().patch',
    arguments: patchMethod('patch', (api, n, b, o) => api.patch(n as string, b, o as never)),
  },
  {
    entry: 'resourceApi().apply',
    arguments: [
      ...objectMethod('apply', (api, c, o) => api.apply(c as never, o as never), {
        fieldManager: 'me',
      }),
      argument(
        'apply options.fieldManager',
        [undef, { label: 'empty', value: '' }],
        badRequest,
        on((api, bad) => api.apply(pod() as never, { fieldManager: bad as string })),
      ),
    ],
  },
  {
    entry: 'resourceApi().delete',
    arguments: nameMethod('delete', (api, n, o) => api.delete(n as string, o as never)),
  },
  {
    entry: 'resourceApi().delete options',
    arguments: [
      argument(
        'delete options.propagationPolicy',
        [...NOT_STRINGS, ...HOSTILE_STRINGS],
        badRequest,
        on((api, bad) => api.delete('web', { ...ns, propagationPolicy: bad as never })),
      ),
      argument(
        'delete options.gracePeriodSeconds',
        NOT_COUNTS,
        badRequest,
        on((api, bad) => api.delete('web', { ...ns, gracePeriodSeconds: bad as number })),
      ),
      argument(
        'delete options.preconditions',
        NOT_OBJECTS,
        badRequest,
        on((api, bad) => api.delete('web', { ...ns, preconditions: bad as never })),
      ),
    ],
  },
  {
    entry: 'resourceApi().status.get',
    arguments: nameMethod('status.get', (api, n, o) => api.status.get(n as string, o as never)),
  },
  {
    entry: 'resourceApi().status.replace',
    arguments: objectMethod('status.replace', (api, o, p) =>
      api.status.replace(o as never, p as never),
    ),
  },
  {
    entry: 'resourceApi().status.patch',
    arguments: patchMethod('status.patch', (api, n, b, o) =>
      api.status.patch(n as string, b, o as never),
    ),
  },
  {
    entry: 'resourceApi().status.apply',
    arguments: objectMethod(
      'status.apply',
      (api, c, o) => api.status.apply(c as never, o as never),
      {
        fieldManager: 'me',
      },
    ),
  },
  {
    entry: 'resourceApi().scale.get',
    arguments: nameMethod('scale.get', (api, n, o) => api.scale.get(n as string, o as never)),
  },
  {
    entry: 'resourceApi().scale.replace',
    arguments: objectMethod('scale.replace', (api, o, p) =>
      api.scale.replace(o as never, p as never),
    ),
  },
  {
    entry: 'resourceApi().scale.patch',
    arguments: patchMethod('scale.patch', (api, n, b, o) =>
      api.scale.patch(n as string, b, o as never),
    ),
  },
];
