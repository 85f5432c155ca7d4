// createInformers in virtual time: the `source` seam hands out marble sources, so every open and
// close of an upstream, and every linger, is seen at its exact virtual time.
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { finalize, type Observable } from 'rxjs';
import { marbles, type Context } from 'rxjs-marbles/jest';
import { createInformers, type InformersConfig } from '../../src/operators/createInformers.js';
import type { Store } from '../../src/operators/toStore.js';
import { pods } from '../../src/objects/resources.js';
import { listOf, modified, pod } from '../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../src/testing/marbles/marbleWatchSource.js';
import type { ClusterConnection, WatchEvent } from '../../src/types.js';

const cluster: ClusterConnection = { name: 'marbles', resolve: () => Promise.reject(new Error()) };

/** Informers whose upstreams are marble sources; `log` says when each opens and closes. */
function marbleInformers(m: Context, config: InformersConfig = {}) {
  const log: string[] = [];
  let upstreams = 0;
  const informers = createInformers({
    scheduler: m.scheduler,
    resilience: { random: () => 0.5 },
    ...config,
    source: (_cluster, _resource, options) => {
      const n = ++upstreams;
      log.push(`${m.scheduler.now()} open #${n} ${options.labelSelector ?? ''}`.trimEnd());
      return marbleWatchSource<V1Pod>({
        lists: [m.cold('(l|)', { l: listOf([pod('a', '3')], '3') })],
        connections: [
          () =>
            m
              .cold('--m', { m: modified(pod('a', '5')) })
              .pipe(finalize(() => log.push(`${m.scheduler.now()} close #${n}`))),
        ],
      });
    },
  });
  return { informers, log };
}

/** Subscribes `observable` at `from` and unsubscribes at `to` (virtual ms). */
function during<T>(
  m: Context,
  observable: Observable<T>,
  from: number,
  to: number,
  seen: T[] = [],
) {
  m.scheduler.schedule(() => {
    const subscription = observable.subscribe((value) => seen.push(value));
    m.scheduler.schedule(() => subscription.unsubscribe(), to - from);
  }, from);
  return seen;
}

describe('createInformers', () => {
  it(
    'closes the upstream at once when the last subscriber leaves (linger 0)',
    marbles((m) => {
      const { informers, log } = marbleInformers(m);
      during(m, informers.store(cluster, pods), 0, 10);
      during(m, informers.events(cluster, pods), 5, 20);
      during(m, informers.store(cluster, pods), 30, 40);
      m.flush();
      expect(log).toEqual(['0 open #1', '20 close #1', '30 open #2', '40 close #2']);
    }),
  );

  it(
    'keeps the upstream `linger` ms after the last subscriber, for a store and for events',
    marbles((m) => {
      const { informers, log } = marbleInformers(m, { linger: 100 });
      during(m, informers.store(cluster, pods), 0, 10);
      // Back within the linger: the same upstream, the store as it was.
      const seen = during(m, informers.store(cluster, pods), 60, 70);
      during(m, informers.events(cluster, pods), 300, 310);
      m.flush();
      expect(log).toEqual(['0 open #1', '170 close #1', '300 open #2', '410 close #2']);
      // The late subscriber got the current snapshot at once (the MODIFIED of 'a' came at 2ms).
      expect(
        seen.map((s) => (s as Store<V1Pod>).get('default', 'a')?.metadata?.resourceVersion),
      ).toEqual(['5']);
    }),
  );

  it(
    'lingers once for a store, not once for the store and again for its upstream',
    marbles((m) => {
      const { informers, log } = marbleInformers(m, { linger: 50 });
      during(m, informers.store(cluster, pods), 0, 10);
      during(m, informers.events(cluster, pods), 0, 30);
      m.flush();
      // The store leaves at 10 and lingers to 60; the events leave at 30 and linger to 80.
      expect(log).toEqual(['0 open #1', '80 close #1']);
    }),
  );

  it(
    'opens one upstream per distinct request, each with its own linger',
    marbles((m) => {
      const { informers, log } = marbleInformers(m, { linger: 20 });
      during(m, informers.store(cluster, pods, { labelSelector: 'app=a' }), 0, 10);
      during(m, informers.store(cluster, pods, { labelSelector: 'app=a' }), 5, 40);
      during(m, informers.store(cluster, pods, { labelSelector: 'app=b' }), 5, 15);
      m.flush();
      expect(log).toEqual(['0 open #1 app=a', '5 open #2 app=b', '35 close #2', '60 close #1']);
      expect(informers.size).toBe(0);
    }),
  );

  it(
    'replays to a late events subscriber what shareWatch gives',
    marbles((m) => {
      const { informers } = marbleInformers(m);
      during(m, informers.events(cluster, pods), 0, 10);
      const late = during<WatchEvent<V1Pod>>(m, informers.events(cluster, pods), 5, 10);
      m.flush();
      expect(
        late.map((e) => (e.type === 'ERROR' ? 'ERROR' : `${e.type} ${e.resourceVersion}`)),
      ).toEqual(['ADDED 5', 'BOOKMARK 5']);
    }),
  );

  it(
    'tells onLifecycle which request each upstream event is about, besides resilience.onLifecycle',
    marbles((m) => {
      const told: string[] = [];
      const resilienceTold: string[] = [];
      const { informers } = marbleInformers(m, {
        resilience: { random: () => 0.5, onLifecycle: (e) => resilienceTold.push(e.type) },
        onLifecycle: (resource, e, options) =>
          told.push(`${resource.plural} ${options.labelSelector ?? '*'} ${e.type}`),
      });
      during(m, informers.store(cluster, pods, { labelSelector: 'app=a' }), 0, 10);
      during(m, informers.events(cluster, pods), 0, 10);
      m.flush();
      expect(told.filter((line) => line.endsWith('relist-end'))).toEqual([
        'pods app=a relist-end',
        'pods * relist-end',
      ]);
      // One callback for every request, and the resumer's own still told every step.
      expect(resilienceTold).toEqual(told.map((line) => line.split(' ')[2]));
    }),
  );
});
