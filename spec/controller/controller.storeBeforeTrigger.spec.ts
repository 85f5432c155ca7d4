// controller(): the store before the trigger, by construction. Each watched resource is one
// subscription that folds an event into its store and only then hands the keys on, so a run
// (which may start synchronously, inside the event's delivery) never reads a store older than
// the event that triggered it. The watches are subjects behind createInformers' `source` seam:
// the test pushes several events in one synchronous burst, as one decoded chunk delivers them.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { Subject, of, type Subscription } from 'rxjs';
import { controller } from '../../src/controller/controller.js';
import { createInformers } from '../../src/operators/createInformers.js';
import { deployments, pods } from '../../src/objects/resources.js';
import {
  deleted,
  deployment,
  expired,
  listOf,
  modified,
  pod,
} from '../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../src/testing/marbles/marbleWatchSource.js';
import type { ClusterConnection, ListResult, ResourceRef, WatchEvent } from '../../src/types.js';
import { until } from '../support/wait.js';

const cluster: ClusterConnection = { name: 'subjects', resolve: () => Promise.reject(new Error()) };
const subscriptions: Subscription[] = [];
afterEach(() => subscriptions.splice(0).forEach((s) => s.unsubscribe()));

/** A watch the test drives: the lists it answers in turn, and the events it pushes. */
interface DrivenWatch {
  lists: ListResult<any>[];
  events: Subject<WatchEvent<any>>[];
}

/** Informers whose upstream for each plural is a driven watch (lists, then subjects). */
function drivenInformers(watches: Record<string, DrivenWatch>) {
  return createInformers({
    resilience: { random: () => 0 },
    source: (_cluster, resource: ResourceRef<any>) => {
      const watch = watches[resource.plural]!;
      return marbleWatchSource({
        resource,
        lists: watch.lists.map((list) => of(list)),
        connections: watch.events.map((subject) => subject.asObservable()),
      });
    },
  });
}

interface Run {
  key: string;
  resourceVersion: string | undefined;
}

const web = (rv: string, generation = 1) => deployment('web', rv, { metadata: { generation } });
const db = (rv: string, generation = 1) => deployment('db', rv, { metadata: { generation } });
const api = (rv: string) => deployment('api', rv, { metadata: { generation: 1 } });

describe('controller: a run never reads a store older than the event that triggered it', () => {
  it('a MODIFIED and a DELETED in one chunk: runs see the change, then the deletion', async () => {
    const events = new Subject<WatchEvent<V1Deployment>>();
    const informers = drivenInformers({
      deployments: { lists: [listOf([web('3')], '3')], events: [events] },
    });
    const runs: Run[] = [];
    subscriptions.push(
      controller<V1Deployment>({
        cluster,
        informers,
        for: { resource: deployments },
        rateLimit: false,
        reconcile: async (object, { key }) =>
          void runs.push({ key, resourceVersion: object?.metadata?.resourceVersion }),
      }).subscribe(),
    );
    await until(() => runs.length === 1, 'the first run');
    await new Promise((resolve) => setTimeout(resolve, 10)); // it has ended
    const chunk = runs.length;
    // One chunk: both events are delivered synchronously, one after the other.
    events.next(modified(deployment('web', '5', { metadata: { generation: 2 } })));
    events.next(deleted(deployment('web', '6', { metadata: { generation: 2 } })));
    await until(() => runs.at(-1)?.resourceVersion === undefined, 'a run after the deletion');
    const after = runs.slice(chunk).map((run) => run.resourceVersion);
    // The MODIFIED's run starts at once, inside its delivery: it read the store with web@5
    // folded in (a trigger handed on before the fold would have read web@3), then the
    // deletion runs it once more.
    expect(after).toEqual(['5', undefined]);
  });

  it('a trigger racing a relist: runs started by the relist see the relisted store', async () => {
    const deploymentEvents = [0, 1].map(() => new Subject<WatchEvent<V1Deployment>>());
    const podEvents = new Subject<WatchEvent<V1Pod>>();
    const informers = drivenInformers({
      deployments: {
        lists: [
          listOf([web('3'), db('4')], '4'),
          // The relist after 410 Gone: web was deleted, db changed, api created meanwhile.
          listOf([db('8', 2), api('9')], '9'),
        ],
        events: deploymentEvents,
      },
      pods: { lists: [listOf([], '4')], events: [podEvents] },
    });
    const runs: Run[] = [];
    let hold: Promise<void> = Promise.resolve();
    subscriptions.push(
      controller<V1Deployment>({
        cluster,
        informers,
        for: { resource: deployments },
        owns: [{ resource: pods }],
        concurrency: 3,
        rateLimit: false,
        reconcile: async (object, { key }) => {
          runs.push({ key, resourceVersion: object?.metadata?.resourceVersion });
          await hold;
        },
      }).subscribe(),
    );
    await until(() => runs.length === 2, 'the first runs of web and db');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const before = runs.length;
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    // In one burst: web's pod changes (a trigger of web, whose run starts at once and holds),
    // then the deployments watch expires and the relist lands.
    const owner = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'uid-web',
      controller: true,
    };
    podEvents.next(modified(pod('web-1', '10', { metadata: { ownerReferences: [owner] } })));
    deploymentEvents[0]!.next(expired());
    await until(() => runs.some((run) => run.key === 'default/api'), 'the relist ran api');
    release();
    await until(
      () => runs.filter((run) => run.key === 'default/web').length === 3,
      'web ran again after its run in flight',
    );
    const seen = runs.slice(before).map((run) => `${run.key}@${run.resourceVersion}`);
    // web's pod-triggered run saw web@3 (the relist had not landed); every run the relist
    // started saw the relisted store: db@8, api@9, and web gone (its run waited for the one
    // in flight). A trigger handed on before its fold would have shown db@4 and no api.
    expect(seen.slice(0, 1)).toEqual(['default/web@3']);
    expect(seen.slice(1).sort()).toEqual([
      'default/api@9',
      'default/db@8',
      'default/web@undefined',
    ]);
  });
});
