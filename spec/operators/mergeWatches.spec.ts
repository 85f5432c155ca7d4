import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { EMPTY, type Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { mergeWatches, type MergedWatchEvent } from '../../src/operators/mergeWatches.js';
import {
  added,
  deployment,
  errorEvent,
  modified,
  pod,
  watchError,
} from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';
import { WatchError } from '../../src/WatchError.js';

const a = added(pod('a', '5'));
const b = modified(pod('a', '7'));
const d = added(deployment('web', '6'));
const tagged = {
  A: { ...a, source: 'pods' },
  B: { ...b, source: 'pods' },
  D: { ...d, source: 'deployments' },
};

/** The error of the ERROR event a merge reported, to look into. */
function reported(events: MergedWatchEvent<Record<string, unknown>>[]): WatchError {
  const last = events[events.length - 1];
  if (last?.type !== 'ERROR') throw new Error('no ERROR event reported');
  return last.error;
}

describe('mergeWatches', () => {
  it(
    'tags each event with its source key and completes when every source has',
    marbles((m) => {
      const pods = m.cold<WatchEvent<V1Pod>>('-a---b|', { a, b });
      const deployments = m.cold<WatchEvent<V1Deployment>>('---d-----|', { d });
      m.expect<unknown>(mergeWatches({ pods, deployments })).toBeObservable('-A-D-B---|', tagged);
    }),
  );

  it(
    'tags ERROR events as data, without ending anything',
    marbles((m) => {
      const x = errorEvent<V1Pod>(500, 'InternalError');
      const pods = m.cold<WatchEvent<V1Pod>>('-x-a|', { x, a });
      m.expect<unknown>(mergeWatches({ pods })).toBeObservable('-X-A|', {
        X: { ...x, source: 'pods' },
        A: tagged.A,
      });
    }),
  );

  it(
    'errors when a source errors, releasing the others',
    marbles((m) => {
      const failure = watchError(403, 'forbidden');
      const pods = m.cold<WatchEvent<V1Pod>>('-a---b-|', { a, b });
      const deployments = m.cold<WatchEvent<V1Deployment>>('---#', undefined, failure);
      m.expect<unknown>(mergeWatches({ pods, deployments })).toBeObservable(
        '-A-#',
        tagged,
        failure,
      );
      m.expect(pods).toHaveSubscriptions('^--!');
    }),
  );

  it(
    'with isolateErrors, reports a failing source as a tagged ERROR and goes on with the rest',
    marbles((m) => {
      const failure = watchError(403, 'forbidden');
      const pods = m.cold<WatchEvent<V1Pod>>('-a---b-|', { a, b });
      const deployments = m.cold<WatchEvent<V1Deployment>>('--d#', { d }, failure);
      m.expect<unknown>(
        mergeWatches({ pods, deployments }, { isolateErrors: true }),
      ).toBeObservable('-ADX-B-|', {
        ...tagged,
        X: { type: 'ERROR', error: failure, source: 'deployments' },
      });
      m.expect(pods).toHaveSubscriptions('^------!');
    }),
  );

  it(
    'with isolateErrors, wraps what is not a WatchError: system errors as SYSTEM_ERROR',
    marbles((m) => {
      const reset = Object.assign(new Error('read ECONNRESET'), {
        code: 'ECONNRESET',
        syscall: 'read',
      });
      const events: MergedWatchEvent<Record<string, unknown>>[] = [];
      mergeWatches({ pods: m.cold('-#', undefined, reset) }, { isolateErrors: true }).subscribe(
        (e) => events.push(e),
      );
      m.flush();
      const error = reported(events);
      expect(error).toBeInstanceOf(WatchError);
      expect(error).toMatchObject({ errorType: 'SYSTEM_ERROR', statusCode: 0, cause: reset });
      expect(error.message).toBe("source 'pods' failed: read ECONNRESET");
      expect(events[0]).toMatchObject({ type: 'ERROR', source: 'pods' });
    }),
  );

  it(
    'with isolateErrors, wraps other errors, and non-Error throws, as UNKNOWN_ERROR',
    marbles((m) => {
      const events: MergedWatchEvent<Record<string, unknown>>[] = [];
      const bug = new TypeError('x is undefined');
      mergeWatches(
        { pods: m.cold('-#', undefined, bug), nodes: m.cold('--#', undefined, 'nope') },
        { isolateErrors: true },
      ).subscribe((e) => events.push(e));
      m.flush();
      expect(reported(events.slice(0, 1))).toMatchObject({
        errorType: 'UNKNOWN_ERROR',
        statusCode: 0,
        message: "source 'pods' failed: x is undefined",
        cause: bug,
      });
      expect(reported(events)).toMatchObject({
        errorType: 'UNKNOWN_ERROR',
        message: "source 'nodes' failed: nope",
      });
    }),
  );

  it('completes at once without sources', () => {
    let completed = false;
    mergeWatches({}).subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
  });

  it('types each event per source key', () => {
    const pods = EMPTY as Observable<WatchEvent<V1Pod>>;
    const deployments = EMPTY as Observable<WatchEvent<V1Deployment>>;
    mergeWatches({ pods, deployments }).subscribe((e) => {
      if (e.type === 'ERROR') {
        const error: WatchError = e.error;
        return error;
      }
      if (e.source === 'pods') {
        const phase: string | undefined = e.object.status?.phase;
        // @ts-expect-error a pod has no replicas
        return [phase, e.object.spec?.replicas];
      }
      const replicas: number | undefined = e.object.spec?.replicas;
      // @ts-expect-error a deployment has no phase
      return [replicas, e.object.status?.phase];
    });
    const named: Observable<MergedWatchEvent<{ pods: V1Pod; deployments: V1Deployment }>> =
      mergeWatches({ pods, deployments });
    expect(named).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
