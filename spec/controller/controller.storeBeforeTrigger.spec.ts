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
  errorEvent,
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

/**
 * Informers whose upstreams for each plural are driven watches: its lists and its subjects are
 * handed out in turn, across upstreams (a new upstream after a failure takes the next ones).
 */
function drivenInformers(watches: Record<string, DrivenWatch>) {
  // Copies, taken from in turn: the test keeps its own arrays to push to.
  const queues = new Map(
    Object.entries(watches).map(([plural, w]) => [
      plural,
      { lists: [...w.lists], events: [...w.events] },
    ]),
  );
  const turn = <T>(queue: T[]) => Array.from({ length: 8 }, () => () => queue.shift()!);
  return createInformers({
    resilience: { random: () => 0 },
    source: (_cluster, resource: ResourceRef<any>) => {
      const queue = queues.get(resource.plural)!;
      return marbleWatchSource({
        resource,
        lists: turn(queue.lists).map((next) => () => of(next())),
        connections: turn(queue.events).map((next) => () => next().asObservable()),
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

  it('a shared watch that fails and comes back: runs read the old store until the new one syncs', async () => {
    const deploymentEvents = [0, 1].map(() => new Subject<WatchEvent<V1Deployment>>());
    const informers = drivenInformers({
      deployments: {
        lists: [
          listOf([web('3'), db('4')], '4'),
          // The list of the new upstream: web was deleted, db changed, api created meanwhile.
          listOf([db('8', 2), api('9')], '9'),
        ],
        events: deploymentEvents,
      },
    });
    const runs: Run[] = [];
    const sizes: number[] = [];
    subscriptions.push(
      controller<V1Deployment>({
        cluster,
        informers,
        for: { resource: deployments },
        concurrency: 3,
        rateLimit: false,
        random: () => 0,
        reconcile: async (object, { key, stores }) => {
          runs.push({ key, resourceVersion: object?.metadata?.resourceVersion });
          sizes.push(stores.get(deployments)!.size);
        },
      }).subscribe(),
    );
    await until(() => runs.length === 2, 'the first runs of web and db');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const before = runs.length;
    // A refusal the shared informers do not retry ends their upstream; the controller
    // subscribes again and a new upstream lists afresh.
    deploymentEvents[0]!.next(
      errorEvent(403, 'Forbidden', 'forbidden', { resourcePath: '/apis/apps/v1/deployments' }),
    );
    await until(() => runs.length >= before + 3, 'the runs of the rebuilt store');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const seen = runs.slice(before).map((run) => `${run.key}@${run.resourceVersion}`);
    // Every object of the new store runs, and web, which vanished while no watch was open,
    // runs once with undefined; each of them read the whole new store, never a part of it.
    expect(seen.sort()).toEqual(['default/api@9', 'default/db@8', 'default/web@undefined']);
    expect(sizes.slice(before)).toEqual([2, 2, 2]);
  });
});
