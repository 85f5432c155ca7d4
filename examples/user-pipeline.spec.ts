/**
 * Testing your own pipeline with marbles, in virtual time, resume included.
 *
 *   npm run spec -- examples/user-pipeline.spec.ts
 *
 * `marbleWatchSource` stands in for `fromWatch(kc, pods)`: its n-th connection is the n-th
 * cold observable given, its n-th list the n-th list given, and it records the options of each
 * (so a test can check where a reconnect resumed from). The builders (`pod`, `added`,
 * `modified`, `expired`, `listOf`...) make the events. Passing `m.scheduler` to
 * `resumeFromResourceVersion` puts its timers (backoff, idle) in virtual time too.
 *
 * In your project, import from 'kube-rx' and 'kube-rx/testing' instead of '../src/...'.
 */
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { distinctUntilChanged, filter, map, type OperatorFunction } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { resumeFromResourceVersion, toStore } from '../src/index.js';
import type { LifecycleEvent, ResumeConfig, WatchEvent } from '../src/index.js';
import {
  added,
  deleted,
  expired,
  listOf,
  marbleWatchSource,
  modified,
  pod,
  watchError,
} from '../src/testing/index.js';

// --- The pipeline under test (in your project, it lives in its own module) -------------------

/**
 * The names of the running pods, once the initial state is known and then after each change
 * that alters them. Resumes, relists and hides errors through `resumeFromResourceVersion`.
 */
function runningPodNames(config: ResumeConfig = {}): OperatorFunction<WatchEvent<V1Pod>, string[]> {
  // resumeFromResourceVersion lists and reconnects through its source, so at run time the
  // source must be a WatchSource: fromWatch(...) in production, marbleWatchSource(...) here.
  return (source) =>
    source.pipe(
      resumeFromResourceVersion(config),
      toStore(),
      filter((store) => store.synced),
      map((store) =>
        store
          .values()
          .filter((p) => p.status?.phase === 'Running')
          .map((p) => p.metadata?.name ?? ''),
      ),
      distinctUntilChanged((a, b) => a.join() === b.join()),
    );
}

// --- Its spec ----------------------------------------------------------------------------------

const running = (name: string, rv: string) => pod(name, rv, { status: { phase: 'Running' } });
const pending = (name: string, rv: string) => pod(name, rv, { status: { phase: 'Pending' } });

describe('runningPodNames (a user pipeline, tested with kube-rx/testing)', () => {
  it(
    'lists, then follows the watch',
    marbles((m) => {
      const source = marbleWatchSource<V1Pod>({
        lists: [m.cold('-(l|)', { l: listOf([running('a', '3'), pending('b', '4')], '4') })],
        connections: [
          m.cold('--b--c', { b: modified(running('b', '6')), c: added(pending('c', '7')) }),
        ],
      });
      const config = { scheduler: m.scheduler, random: () => 0.5 };

      // The list answers at frame 1; the watch opens then, so its frame 2 is frame 3 here.
      m.expect(source.pipe(runningPodNames(config))).toBeObservable('-x-y', {
        x: ['a'],
        y: ['a', 'b'],
      });
      m.flush();
      // It watched from the list's version, with bookmarks and a server-side timeout.
      expect(source.connections).toEqual([
        { resourceVersion: '4', allowWatchBookmarks: true, timeoutSeconds: 450 },
      ]);
    }),
  );

  it(
    'resumes from the last version it saw when the server closes the watch',
    marbles((m) => {
      const source = marbleWatchSource<V1Pod>({
        lists: [m.cold('(l|)', { l: listOf([running('a', '3')], '3') })],
        connections: [
          // The server ends the first watch after one event (as it does every few minutes) ...
          m.cold('-b|', { b: added(running('b', '5')) }),
          // ... and the reconnect, at once, sees what happened next.
          m.cold('-d', { d: deleted(running('a', '8')) }),
        ],
      });
      const config = { scheduler: m.scheduler, random: () => 0.5 };

      m.expect(source.pipe(runningPodNames(config))).toBeObservable('xy-z', {
        x: ['a'],
        y: ['a', 'b'],
        z: ['b'],
      });
      m.flush();
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['3', '5']);
      expect(source.lists).toHaveLength(1); // no relist: nothing was lost
    }),
  );

  it(
    'relists after 410 Gone and catches up with what changed meanwhile',
    marbles((m) => {
      const source = marbleWatchSource<V1Pod>({
        lists: [
          m.cold('(l|)', { l: listOf([running('a', '3'), running('b', '4')], '4') }),
          // While this client was away, b stopped and c started.
          m.cold('-(l|)', { l: listOf([running('a', '3'), running('c', '12')], '12') }),
        ],
        connections: [m.cold('--x', { x: expired() }), m.cold('-')],
      });
      const lifecycle: string[] = [];
      const config = {
        scheduler: m.scheduler,
        random: () => 0.5,
        onLifecycle: (e: LifecycleEvent) => lifecycle.push(e.type),
      };

      // 410 at frame 2; the relist follows a backoff (400 ms with random 0.5) and answers at 403.
      // Its difference arrives as events (DELETED b first, then ADDED c) in one frame, and the
      // store passes through each: a pipeline that must never see [a] alone needs to coalesce.
      m.expect(source.pipe(runningPodNames(config))).toBeObservable('x 402ms (yz)', {
        x: ['a', 'b'],
        y: ['a'],
        z: ['a', 'c'],
      });
      m.flush();
      expect(lifecycle).toContain('expired');
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['4', '12']);
    }),
  );

  it(
    'backs off after a failure and resumes where it was',
    marbles((m) => {
      const source = marbleWatchSource<V1Pod>({
        lists: [m.cold('(l|)', { l: listOf([pending('a', '3')], '3') })],
        connections: [
          m.cold('-a#', { a: modified(running('a', '4')) }, watchError(503, 'unavailable')),
          m.cold('-b', { b: added(running('b', '6')) }),
        ],
      });
      // random 0.5: the first backoff waits half of 800 ms (full jitter), in virtual time.
      const config = { scheduler: m.scheduler, random: () => 0.5 };

      // a Pending at 0, Running at 1; 503 at 2; reconnect at 402; b one frame later.
      m.expect(source.pipe(runningPodNames(config))).toBeObservable('xy 401ms z', {
        x: [],
        y: ['a'],
        z: ['a', 'b'],
      });
      m.flush();
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['3', '4']);
    }),
  );
});
