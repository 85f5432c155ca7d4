import { describe, expect, it } from '@jest/globals';
import type { V1Deployment } from '@kubernetes/client-node';
import { marbles } from 'rxjs-marbles/jest';
import { generationChanged } from '../../src/operators/generationChanged.js';
import { resumeFromResourceVersion } from '../../src/operators/resumeFromResourceVersion.js';
import {
  added,
  bookmark,
  deleted,
  deployment,
  errorEvent,
  expired,
  listOf,
  modified,
} from '../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../src/testing/marbles/marbleWatchSource.js';
import type { WatchEvent } from '../../src/types.js';
import { describeEvent } from './support/resumeHarness.js';

/** Deployment `name` at `rv` with `generation` and `ready` ready replicas (a status field). */
const dep = (name: string, rv: string, generation: number, ready = 1) =>
  deployment(name, rv, { metadata: { generation }, status: { readyReplicas: ready } });

describe('generationChanged', () => {
  it(
    'drops status-only MODIFIED events and passes generation changes, ADDED, DELETED, BOOKMARK and ERROR',
    marbles((m) => {
      const values = {
        a: added(dep('web', '1', 1)),
        s: modified(dep('web', '2', 1, 2)), // status only
        g: modified(dep('web', '3', 2, 2)),
        t: modified(dep('web', '4', 2, 3)), // status only
        b: bookmark<V1Deployment>('5'),
        x: errorEvent<V1Deployment>(500),
        d: deleted(dep('web', '6', 2, 3)),
        n: modified(dep('web', '7', 2, 3)), // unseen since the deletion
      };
      const source = m.cold<WatchEvent<V1Deployment>>('-a-s-g-t-b-x-d-n-|', values);
      m.expect(source.pipe(generationChanged())).toBeObservable('-a---g---b-x-d-n-|', values);
    }),
  );

  it(
    'drops the MODIFIED of a relist difference when the generation did not change',
    marbles((m) => {
      const source = marbleWatchSource<V1Deployment>({
        resource: { group: 'apps', version: 'v1', plural: 'deployments' },
        lists: [
          m.cold('(l|)', {
            l: listOf([dep('a', '3', 1), dep('b', '4', 1), dep('c', '5', 1)], '5'),
          }),
          // After the 410: a and b changed during the gap (a status only, b its spec), c was
          // deleted, d created.
          m.cold('(l|)', {
            l: listOf([dep('a', '8', 1, 5), dep('b', '9', 2), dep('d', '10', 1)], '10'),
          }),
        ],
        connections: [
          m.cold('-s-x', { s: modified(dep('a', '6', 1, 2)), x: expired() }),
          m.cold('-t-', { t: modified(dep('b', '11', 2, 3)) }),
        ],
      });
      const lines: string[] = [];
      source
        .pipe(
          resumeFromResourceVersion({ scheduler: m.scheduler, random: () => 0.5 }),
          generationChanged(),
        )
        .subscribe((event) => lines.push(`${m.scheduler.now()} ${describeEvent(event)}`));
      m.flush();
      expect(lines).toEqual([
        '0 ADDED a@3',
        '0 ADDED b@4',
        '0 ADDED c@5',
        '0 BOOKMARK 5 end',
        // '1 MODIFIED a@6' (status only) is dropped
        // The relist difference (deletions first): a@8 (status only) is dropped.
        '3 DELETED c@5',
        '3 MODIFIED b@9',
        '3 ADDED d@10',
        '3 BOOKMARK 10 end',
        // '4 MODIFIED b@11' (status only) is dropped
      ]);
    }),
  );
});
