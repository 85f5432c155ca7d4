/**
 * Every public entry point, every argument, every kind of bad value (issue 39): each answers as
 * its contract says (DESIGN: the primitive yields one ERROR and never throws; Observables error
 * with a WatchError; configuration throws a TypeError at call time), with an error whose message
 * names the bad argument, never an unrelated crash (a TypeError from reading `null`), never a
 * hang, and never a request: the test server's `requests` stays empty.
 *
 * The table is in ./publicEntries/: a new entry is covered by adding a row. Deferred rows:
 * none (resourceApi and its methods, retryOnConflict, the controller kit and kube-rx/metrics
 * are rows).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WatchError } from '../../src/WatchError.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { CONFIG_ROWS, SERVER_ROWS } from './publicEntries/configRows.js';
import { KIT_ROWS } from './publicEntries/kitRows.js';
import { METRICS_ROWS } from './publicEntries/metricsRows.js';
import { outcomeOf, type Outcome } from './publicEntries/outcome.js';
import { REQUEST_ROWS } from './publicEntries/requestRows.js';
import { WRITE_ROWS } from './publicEntries/writeRows.js';
import type { ArgumentCase, Kit } from './publicEntries/table.js';

const ROWS = [
  ...REQUEST_ROWS,
  ...WRITE_ROWS,
  ...KIT_ROWS,
  ...CONFIG_ROWS,
  ...SERVER_ROWS,
  ...METRICS_ROWS,
];

/** C0 and C1 control characters: none may reach a message raw. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

let kit: Kit;
beforeAll(async () => {
  const server = await FakeKubeApiServer.start();
  kit = { server, kc: server.kubeConfig() };
});
afterAll(() => kit.server.stop());

/** The error the outcome carries, checked against the case's contract. */
function answeredError(outcome: Outcome, { contract }: ArgumentCase): unknown {
  switch (contract.answer) {
    case 'error-event': {
      expect(outcome.kind).toBe('events');
      const events = (outcome as { events: Array<{ type: string; error?: unknown }> }).events;
      expect(events.map((e) => e.type)).toEqual(['ERROR']);
      return events[0].error;
    }
    case 'error-notification':
      expect(outcome.kind).toBe('errored');
      expect((outcome as { events: unknown[] }).events).toEqual([]);
      return (outcome as { error: unknown }).error;
    case 'throws':
      expect(outcome.kind).toBe('thrown');
      return (outcome as { error: unknown }).error;
    case 'rejects':
      expect(outcome.kind).toBe('errored');
      return (outcome as { error: unknown }).error;
  }
}

function expectedKind({ contract }: ArgumentCase): string {
  if (contract.answer === 'error-event' || contract.answer === 'error-notification') {
    return `WatchError ${contract.errorType}`;
  }
  return contract.error === 'TypeError' ||
    contract.error === 'RangeError' ||
    contract.error === 'LabelSelectorError'
    ? contract.error
    : `WatchError ${contract.error}`;
}

function kindOf(error: unknown): string {
  if (error instanceof WatchError) return `WatchError ${error.errorType}`;
  return error instanceof Error ? error.constructor.name : typeof error;
}

for (const row of ROWS) {
  describe(row.entry, () => {
    for (const argumentCase of row.arguments) {
      for (const bad of argumentCase.bads) {
        it(`${argumentCase.argument}: ${bad.label}`, async () => {
          const before = kit.server.requests.length;
          const outcome = await outcomeOf(() => argumentCase.call(bad.value, kit));
          const error = answeredError(outcome, argumentCase);
          // The right class and type, not an unrelated crash, and a message that names the
          // argument, bounded, with no control character from the value.
          expect(kindOf(error)).toBe(expectedKind(argumentCase));
          const message = (error as Error).message;
          expect(message).toMatch(argumentCase.names);
          expect(message.length).toBeLessThan(1000);
          expect(message).not.toMatch(CONTROL);
          expect(kit.server.requests.slice(before)).toEqual([]);
        });
      }
    }
  });
}

it('the table covers every entry the issue names', () => {
  expect(ROWS.map((row) => row.entry)).toEqual(
    expect.arrayContaining([
      'watchResource',
      'fromWatch',
      'fromList',
      'fromPodLogs',
      'resilientWatch',
      'createInformers',
      'createInformers().events',
      'createInformers().store',
      'controller',
      'leaderElection',
      'eventRecorder',
      'resourceApi',
      'resourceApi().apply',
      'retryOnConflict',
      'setCondition',
      'controllerReference',
      'finalizer',
      'resource',
      'metadataOnly',
      'FakeKubeApiServer',
      'controllerMetrics',
      'watchMetrics',
    ]),
  );
});
