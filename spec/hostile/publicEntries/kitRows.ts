import { retryOnConflict } from '../../../src/client/write/retryOnConflict.js';
import { controllerReference } from '../../../src/controller/kit/controllerReference.js';
import { finalizer } from '../../../src/controller/kit/finalizer.js';
import { setCondition } from '../../../src/controller/kit/setCondition.js';
import { matchesLabelSelector } from '../../../src/objects/matchesLabelSelector.js';
import { pods } from '../../../src/objects/resources.js';
import {
  HOSTILE_STRINGS,
  MISSING_OR_NOT_OBJECTS,
  NOT_COUNTS,
  NOT_FUNCTIONS,
  NOT_OBJECTS,
  NOT_STRINGS,
  type Bad,
} from './badValues.js';
import { argument, type Contract, type EntryRow } from './table.js';

const typeError: Contract = { answer: 'throws', error: 'TypeError' };
const selectorError: Contract = { answer: 'throws', error: 'LabelSelectorError' };
const rejectsType: Contract = { answer: 'rejects', error: 'TypeError' };
const rejectsRange: Contract = { answer: 'rejects', error: 'RangeError' };
const undef: Bad = { label: 'undefined', value: undefined };

const ready = { type: 'Ready', status: 'True' as const, reason: 'Done' };
const owner = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u-1' },
};
/** Strings that are not a condition's type, status or reason (empty, traversal, controls...). */
const BAD_WORDS: Bad[] = [
  ...NOT_STRINGS,
  ...HOSTILE_STRINGS.filter((b) => !['upper case', '"a/b"'].includes(b.label)),
];

/**
 * The helpers of a controller: `retryOnConflict` (async: it rejects), `setCondition` and
 * `controllerReference` (pure: they throw). None sends anything.
 */
export const KIT_ROWS: EntryRow[] = [
  {
    // Pure: a LabelSelectorError (a TypeError) naming what is wrong, never a crash inside.
    entry: 'matchesLabelSelector',
    arguments: [
      argument(
        'selector',
        NOT_OBJECTS.filter((b) => b.value !== null && typeof b.value !== 'string'),
        selectorError,
        (bad) => matchesLabelSelector(bad as never, {}),
      ),
      argument(
        'selector.matchLabels',
        NOT_OBJECTS.filter((b) => b.value !== null),
        selectorError,
        (bad) => matchesLabelSelector({ matchLabels: bad as never }, {}),
      ),
      argument(
        'selector.matchExpressions',
        NOT_OBJECTS.filter((b) => b.value !== null && !Array.isArray(b.value)),
        selectorError,
        (bad) => matchesLabelSelector({ matchExpressions: bad as never }, {}),
      ),
      argument(
        'selector.matchExpressions[]',
        [...NOT_OBJECTS, undef],
        selectorError,
        (bad) => matchesLabelSelector({ matchExpressions: [bad as never] }, {}),
        /\bmatchExpression\b/,
      ),
      argument(
        'selector.matchExpressions[].values',
        NOT_OBJECTS.filter((b) => b.value !== null && !Array.isArray(b.value)),
        selectorError,
        (bad) =>
          matchesLabelSelector(
            { matchExpressions: [{ key: 'a', operator: 'In', values: bad as never }] },
            {},
          ),
      ),
      argument(
        'labels',
        NOT_OBJECTS.filter((b) => b.value !== null),
        typeError,
        (bad) => matchesLabelSelector('a=b', bad as never),
      ),
    ],
  },
  {
    entry: 'retryOnConflict',
    arguments: [
      argument('fn', [undef, ...NOT_FUNCTIONS], rejectsType, (bad) =>
        retryOnConflict(bad as never),
      ),
      argument('options', NOT_OBJECTS, rejectsType, (bad) =>
        retryOnConflict(async () => 1, bad as never),
      ),
      argument(
        'options.attempts',
        [...NOT_COUNTS, { label: 'zero', value: 0 }, { label: 'a symbol', value: Symbol('x') }],
        rejectsRange,
        (bad) => retryOnConflict(async () => 1, { attempts: bad as number }),
      ),
      argument('options.backoff', NOT_OBJECTS, rejectsType, (bad) =>
        retryOnConflict(async () => 1, { backoff: bad as never }),
      ),
      argument(
        'options.backoff.initialMs',
        NOT_COUNTS.filter((b) => b.value !== 1.5 && b.value !== Infinity),
        rejectsRange,
        (bad) => retryOnConflict(async () => 1, { backoff: { initialMs: bad as number } }),
      ),
      argument(
        'options.signal',
        [
          { label: 'a string', value: 'abort' },
          { label: 'null', value: null },
        ],
        rejectsType,
        (bad) => retryOnConflict(async () => 1, { signal: bad as never }),
      ),
    ],
  },
  {
    entry: 'setCondition',
    arguments: [
      argument(
        'conditions',
        [
          ...NOT_OBJECTS.filter((b) => b.value !== null && !Array.isArray(b.value)),
          { label: 'an array with null', value: [null] },
        ],
        typeError,
        (bad) => setCondition(bad as never, ready),
      ),
      argument(
        'update',
        MISSING_OR_NOT_OBJECTS.filter(
          (b) => !Array.isArray(b.value) && typeof b.value !== 'function',
        ),
        typeError,
        (bad) => setCondition([], bad as never),
        /\bcondition\b/,
      ),
      argument('update.type', BAD_WORDS, typeError, (bad) =>
        setCondition([], { ...ready, type: bad as string }),
      ),
      argument(
        'update.status',
        [...BAD_WORDS, { label: '"true"', value: 'true' }],
        typeError,
        (bad) => setCondition([], { ...ready, status: bad as never }),
      ),
      argument('update.reason', BAD_WORDS, typeError, (bad) =>
        setCondition([], { ...ready, reason: bad as string }),
      ),
      argument('update.observedGeneration', NOT_COUNTS, typeError, (bad) =>
        setCondition([], { ...ready, observedGeneration: bad as number }),
      ),
      argument(
        'now',
        [
          { label: 'a string', value: '2026-01-01' },
          { label: 'an invalid Date', value: new Date('x') },
          { label: 'null', value: null },
        ],
        typeError,
        (bad) => setCondition([], ready, bad as Date),
      ),
    ],
  },
  {
    entry: 'controllerReference',
    arguments: [
      argument(
        'owner',
        MISSING_OR_NOT_OBJECTS.filter((b) => !Array.isArray(b.value)),
        typeError,
        (bad) => controllerReference(bad as never),
      ),
      argument('resource', NOT_OBJECTS, typeError, (bad) =>
        controllerReference(owner, bad as never),
      ),
      argument('owner.metadata', NOT_OBJECTS, typeError, (bad) =>
        controllerReference({ ...owner, metadata: bad } as never, pods),
      ),
      argument(
        'owner.metadata.uid',
        [...NOT_STRINGS, { label: 'empty', value: '' }],
        typeError,
        (bad) =>
          controllerReference({ ...owner, metadata: { ...owner.metadata, uid: bad } } as never),
      ),
      argument(
        'owner.kind',
        [
          { label: 'a number', value: 42 },
          { label: 'an object', value: {} },
        ],
        typeError,
        (bad) => controllerReference({ ...owner, kind: bad } as never),
      ),
    ],
  },
  {
    entry: 'finalizer',
    arguments: [
      argument('ctx', MISSING_OR_NOT_OBJECTS, rejectsType, (bad) =>
        finalizer(bad as never, owner, 'example.com/cleanup', handlers),
      ),
      argument('ctx.api', NOT_FUNCTIONS, rejectsType, (bad) =>
        finalizer({ ...finalizerCtx, api: bad } as never, owner, 'example.com/cleanup', handlers),
      ),
      argument('object', NOT_OBJECTS, rejectsType, (bad) =>
        finalizer(finalizerCtx, bad as never, 'example.com/cleanup', handlers),
      ),
      argument('name', [undef, ...BAD_WORDS.filter((b) => b.value !== 'a/b')], rejectsType, (bad) =>
        finalizer(finalizerCtx, owner, bad as string, handlers),
      ),
      argument(
        'handlers',
        MISSING_OR_NOT_OBJECTS,
        rejectsType,
        (bad) => finalizer(finalizerCtx, owner, 'example.com/cleanup', bad as never),
        /\b(apply|cleanup)\b/,
      ),
    ],
  },
];

/** A reconcile context whose writes would be seen: none may be made for a bad argument. */
const finalizerCtx = {
  resource: pods,
  signal: new AbortController().signal,
  api: () => ({
    patch: () => Promise.reject(new Error('finalizer: a patch was sent')),
  }),
};
const handlers = { apply: async () => undefined, cleanup: async () => undefined };
