// createInformers over one marble upstream, for specs of what a shared watch folds and replays.
import type { V1Pod } from '@kubernetes/client-node';
import type { Context } from 'rxjs-marbles/jest';
import { createInformers } from '../../../src/operators/createInformers.js';
import { listOf } from '../../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../../src/testing/marbles/marbleWatchSource.js';
import type { ClusterConnection, WatchEvent } from '../../../src/types.js';

/** A cluster nothing is ever sent to: the marble source stands in for it. */
export const marbleCluster: ClusterConnection = {
  name: 'marbles',
  resolve: () => Promise.reject(new Error()),
};

/**
 * Informers whose every upstream lists `items` at `resourceVersion` (at frame 0) and then
 * watches `watch` (a marble of events named in `values`).
 */
export function marbleInformers(
  m: Context,
  items: V1Pod[],
  resourceVersion: string,
  watch: string,
  values: Record<string, WatchEvent<V1Pod>>,
) {
  return createInformers({
    scheduler: m.scheduler,
    resilience: { random: () => 0.5 },
    source: () =>
      marbleWatchSource<V1Pod>({
        lists: [m.cold('(l|)', { l: listOf(items, resourceVersion) })],
        connections: [() => m.cold(watch, values)],
      }),
  });
}
