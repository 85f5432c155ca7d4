import type { KubeConfig } from '@kubernetes/client-node';
import { controller } from '../../../src/controller/controller.js';
import { leaderElection } from '../../../src/controller/leaderElection.js';
import { eventRecorder } from '../../../src/controller/events/eventRecorder.js';
import { createInformers } from '../../../src/operators/createInformers.js';
import { pods, resource } from '../../../src/objects/resources.js';
import { metadataOnly } from '../../../src/shapes/metadataOnly.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import {
  BAD_SEGMENTS,
  HOSTILE_STRINGS,
  MISSING_OR_NOT_OBJECTS,
  NOT_COUNTS,
  NOT_FUNCTIONS,
  NOT_OBJECTS,
  NOT_STRINGS,
} from './badValues.js';
import { argument, type Contract, type EntryRow } from './table.js';

const typeError: Contract = { answer: 'throws', error: 'TypeError' };
const badRequestNow: Contract = { answer: 'throws', error: 'BAD_REQUEST' };

const controllerConfig = (kc: KubeConfig, patch: Record<string, unknown> = {}) => ({
  cluster: kc,
  for: { resource: pods },
  reconcile: async () => undefined,
  ...patch,
});
const sharding = { ring: 'web', namespace: 'ops', identity: 'pod-1' };
const lease = { namespace: 'default', name: 'lock', identity: 'me' };

/**
 * The entries configured up front (a controller, an election, a reference, the informers): a
 * bad argument throws at call time, a TypeError naming it, or the request's BAD_REQUEST when a
 * reference is checked as each of its requests would be.
 */
export const CONFIG_ROWS: EntryRow[] = [
  {
    entry: 'createInformers',
    arguments: [argument('config', NOT_OBJECTS, typeError, (bad) => createInformers(bad as never))],
  },
  {
    entry: 'controller',
    arguments: [
      argument('config', MISSING_OR_NOT_OBJECTS, typeError, (bad) => controller(bad as never)),
      argument('config.cluster', MISSING_OR_NOT_OBJECTS, typeError, (bad, { kc }) =>
        controller(controllerConfig(kc, { cluster: bad }) as never),
      ),
      argument('config.for', MISSING_OR_NOT_OBJECTS, typeError, (bad, { kc }) =>
        controller(controllerConfig(kc, { for: bad }) as never),
      ),
      argument('config.for.resource', MISSING_OR_NOT_OBJECTS, typeError, (bad, { kc }) =>
        controller(controllerConfig(kc, { for: { resource: bad } }) as never),
      ),
      argument('config.for.resource.plural', BAD_SEGMENTS, badRequestNow, (bad, { kc }) =>
        controller(controllerConfig(kc, { for: { resource: { ...pods, plural: bad } } }) as never),
      ),
      argument('config.for.options', NOT_OBJECTS, typeError, (bad, { kc }) =>
        controller(controllerConfig(kc, { for: { resource: pods, options: bad } }) as never),
      ),
      argument('config.for.options.namespace', BAD_SEGMENTS, badRequestNow, (bad, { kc }) =>
        controller(
          controllerConfig(kc, { for: { resource: pods, options: { namespace: bad } } }) as never,
        ),
      ),
      argument(
        'config.reconcile',
        [...NOT_FUNCTIONS, ...MISSING_OR_NOT_OBJECTS.slice(0, 1)],
        typeError,
        (bad, { kc }) => controller(controllerConfig(kc, { reconcile: bad }) as never),
      ),
      argument(
        'config.owns',
        NOT_OBJECTS.filter((b) => !Array.isArray(b.value)),
        typeError,
        (bad, { kc }) => controller(controllerConfig(kc, { owns: bad }) as never),
      ),
      argument(
        'config.recorder',
        [...NOT_OBJECTS, { label: 'an object without record', value: { close: () => undefined } }],
        typeError,
        (bad, { kc }) => controller(controllerConfig(kc, { recorder: bad }) as never),
      ),
      argument('config.owns[]', MISSING_OR_NOT_OBJECTS, typeError, (bad, { kc }) =>
        controller(controllerConfig(kc, { owns: [bad] }) as never),
      ),
      argument('config.sharding', NOT_OBJECTS, typeError, (bad, { kc }) =>
        controller(controllerConfig(kc, { sharding: bad }) as never),
      ),
      argument(
        'config.sharding.writeConcurrency',
        [...NOT_COUNTS, { label: 'zero', value: 0 }],
        { answer: 'throws', error: 'RangeError' },
        (bad, { kc }) =>
          controller(
            controllerConfig(kc, { sharding: { ...sharding, writeConcurrency: bad } }) as never,
          ),
      ),
      ...(['ring', 'namespace', 'identity'] as const).map((field) =>
        argument(`config.sharding.${field}`, BAD_SEGMENTS, typeError, (bad, { kc }) =>
          controller(controllerConfig(kc, { sharding: { ...sharding, [field]: bad } }) as never),
        ),
      ),
    ],
  },
  {
    entry: 'leaderElection',
    arguments: [
      argument('cluster', MISSING_OR_NOT_OBJECTS, typeError, (bad) =>
        leaderElection(bad as never, lease),
      ),
      argument('config', MISSING_OR_NOT_OBJECTS, typeError, (bad, { kc }) =>
        leaderElection(kc, bad as never),
      ),
      argument('config.namespace', BAD_SEGMENTS, badRequestNow, (bad, { kc }) =>
        leaderElection(kc, { ...lease, namespace: bad as string }),
      ),
      argument('config.name', BAD_SEGMENTS, badRequestNow, (bad, { kc }) =>
        leaderElection(kc, { ...lease, name: bad as string }),
      ),
      argument(
        'config.identity',
        [...NOT_STRINGS, { label: 'empty', value: '' }],
        typeError,
        (bad, { kc }) => leaderElection(kc, { ...lease, identity: bad as string }),
      ),
      argument(
        'config.leaseDurationMs',
        NOT_COUNTS.filter((b) => b.value !== 1.5),
        { answer: 'throws', error: 'RangeError' },
        (bad, { kc }) => leaderElection(kc, { ...lease, leaseDurationMs: bad as number }),
      ),
    ],
  },
  {
    entry: 'eventRecorder',
    arguments: [
      argument('cluster', MISSING_OR_NOT_OBJECTS, typeError, (bad) =>
        eventRecorder(bad as never, {
          reportingController: 'example.com/c',
          reportingInstance: 'r-0',
        }),
      ),
      argument(
        'config',
        MISSING_OR_NOT_OBJECTS.filter((b) => typeof b.value !== 'function'),
        typeError,
        (bad, { kc }) => eventRecorder(kc, bad as never),
        /\b(config|reportingController)\b/,
      ),
      argument(
        'config.reportingController',
        [
          ...NOT_STRINGS,
          { label: 'empty', value: '' },
          { label: '129 characters', value: 'x'.repeat(129) },
        ],
        typeError,
        (bad, { kc }) =>
          eventRecorder(kc, { reportingController: bad as string, reportingInstance: 'r-0' }),
      ),
      argument(
        'config.reportingInstance',
        [...NOT_STRINGS, { label: 'empty', value: '' }],
        typeError,
        (bad, { kc }) =>
          eventRecorder(kc, {
            reportingController: 'example.com/c',
            reportingInstance: bad as string,
          }),
      ),
      argument(
        'config.writeTimeoutMs',
        NOT_COUNTS.filter((b) => b.value !== 1.5),
        typeError,
        (bad, { kc }) =>
          eventRecorder(kc, {
            reportingController: 'example.com/c',
            reportingInstance: 'r-0',
            writeTimeoutMs: bad as number,
          }),
      ),
    ],
  },
  {
    entry: 'resource',
    arguments: [
      argument(
        'groupVersion',
        [{ label: 'undefined', value: undefined }, ...NOT_STRINGS],
        typeError,
        (bad) => resource(bad as string, 'pods'),
      ),
      argument(
        'groupVersion',
        HOSTILE_STRINGS,
        badRequestNow,
        (bad) => resource(bad as string, 'pods'),
        /\b(group|version)\b/,
      ),
      argument(
        'plural',
        [{ label: 'undefined', value: undefined }, ...NOT_STRINGS],
        typeError,
        (bad) => resource('v1', bad as string),
      ),
      argument('plural', HOSTILE_STRINGS, badRequestNow, (bad) => resource('v1', bad as string)),
      argument('options', NOT_OBJECTS, typeError, (bad) => resource('v1', 'pods', bad as never)),
      argument(
        'options.kind',
        [...NOT_STRINGS, ...HOSTILE_STRINGS.filter((b) => b.value !== 'Web')],
        typeError,
        (bad) => resource('v1', 'pods', { kind: bad as string }),
      ),
      argument(
        'options.namespaced',
        [...NOT_STRINGS, { label: 'a string', value: 'true' }],
        typeError,
        (bad) => resource('v1', 'pods', { namespaced: bad as boolean }),
      ),
    ],
  },
  {
    entry: 'metadataOnly',
    arguments: [
      argument('resource', MISSING_OR_NOT_OBJECTS, typeError, (bad) => metadataOnly(bad as never)),
    ],
  },
];

/**
 * The test server's API. Object contents are not checked (hostile names and text are what the
 * hostile specs make it serve); the types of its arguments are, with a TypeError naming each.
 */
export const SERVER_ROWS: EntryRow[] = [
  {
    entry: 'FakeKubeApiServer',
    arguments: [
      argument(
        'FakeKubeApiServer.start options',
        NOT_OBJECTS,
        { answer: 'rejects', error: 'TypeError' },
        (bad) => FakeKubeApiServer.start(bad as never),
        /\boptions\b/,
      ),
      argument(
        'server.kubeConfig opts',
        NOT_OBJECTS,
        typeError,
        (bad, { server }) => server.kubeConfig(bad as never),
        /\bopts\b/,
      ),
      argument(
        'server.create resource',
        MISSING_OR_NOT_OBJECTS,
        typeError,
        (bad, { server }) =>
          server.create(bad as never, { metadata: { name: 'a', namespace: 'default' } }),
        /\bresource\b/,
      ),
      argument(
        'server.create obj',
        MISSING_OR_NOT_OBJECTS,
        typeError,
        (bad, { server }) => server.create(pods, bad as never),
        /\bobj\b/,
      ),
      argument(
        'server.update resource',
        MISSING_OR_NOT_OBJECTS,
        typeError,
        (bad, { server }) =>
          server.update(bad as never, { metadata: { name: 'a', namespace: 'default' } }),
        /\bresource\b/,
      ),
      argument(
        'server.update obj',
        MISSING_OR_NOT_OBJECTS,
        typeError,
        (bad, { server }) => server.update(pods, bad as never),
        /\bobj\b/,
      ),
      argument(
        'server.get resource',
        MISSING_OR_NOT_OBJECTS,
        typeError,
        (bad, { server }) => server.get(bad as never, 'default', 'a'),
        /\bresource\b/,
      ),
      argument(
        'server.get name',
        NOT_STRINGS,
        typeError,
        (bad, { server }) => server.get(pods, 'default', bad as string),
        /\bname\b/,
      ),
      argument(
        'server.delete namespace',
        NOT_STRINGS,
        typeError,
        (bad, { server }) => server.delete(pods, bad as string, 'a'),
        /\bnamespace\b/,
      ),
      argument(
        'server.objects resource',
        MISSING_OR_NOT_OBJECTS,
        typeError,
        (bad, { server }) => server.objects(bad as never),
        /\bresource\b/,
      ),
      argument(
        'server.defineResource definition',
        MISSING_OR_NOT_OBJECTS,
        typeError,
        (bad, { server }) => server.defineResource(bad as never),
        /\bdefinition\b/,
      ),
      argument(
        'server.appendLog line',
        [{ label: 'undefined', value: undefined }, ...NOT_STRINGS],
        typeError,
        (bad, { server }) => server.appendLog('default', 'web-1', bad as string),
        /\bline\b/,
      ),
      argument(
        'server.endLogs pod',
        [{ label: 'undefined', value: undefined }, ...NOT_STRINGS],
        typeError,
        (bad, { server }) => server.endLogs('default', bad as string),
        /\bpod\b/,
      ),
    ],
  },
];
