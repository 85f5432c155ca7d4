import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { Subject, from, merge, type Subscription } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { resumeFromResourceVersion } from '../../src/operators/resumeFromResourceVersion.js';
import { toStore } from '../../src/operators/toStore.js';
import type { Store } from '../../src/operators/store/Store.js';
import { withBookmarks } from '../../src/operators/withBookmarks.js';
import { WatchError } from '../../src/WatchError.js';
import {
  added,
  bookmark,
  errorEvent,
  listOf,
  modified,
  pod,
  watchError,
} from '../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../src/testing/marbles/marbleWatchSource.js';
import type { WatchEvent } from '../../src/types.js';
import { backoffs, httpError, run } from './support/resumeHarness.js';

const connectingTimes = (timeline: string[]) =>
  timeline
    .filter((line) => line.includes(' connecting '))
    .map((line) => Number(line.split(' ')[0]));

describe('resumeFromResourceVersion: backoff', () => {
  it(
    'waits 800 ms doubling to 30 s with full jitter, reconnecting from the cursor',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: Array.from({ length: 9 }, () => httpError(m, 503)),
      });
      const { timeline } = run(m, source, { random: () => 0.5 });
      expect(backoffs(timeline)).toEqual([
        'backoff 400 #1',
        'backoff 800 #2',
        'backoff 1600 #3',
        'backoff 3200 #4',
        'backoff 6400 #5',
        'backoff 12800 #6',
        'backoff 15000 #7',
        'backoff 15000 #8',
        'backoff 15000 #9',
      ]);
      expect(connectingTimes(timeline)).toEqual([
        0, 400, 1200, 2800, 6000, 12400, 25200, 40200, 55200, 70200,
      ]);
      expect(new Set(source.connections.map((c) => c.resourceVersion))).toEqual(new Set(['7']));
    }),
  );

  it(
    'draws each delay from [0, cap): 0 with random 0, just under the cap with random near 1',
    marbles((m) => {
      const low = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: Array.from({ length: 3 }, () => httpError(m, 503)),
      });
      expect(backoffs(run(m, low, { random: () => 0 }).timeline)).toEqual([
        'backoff 0 #1',
        'backoff 0 #2',
        'backoff 0 #3',
      ]);
      const high = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: Array.from({ length: 8 }, () => httpError(m, 503)),
      });
      expect(backoffs(run(m, high, { random: () => 0.99999 }).timeline)).toEqual([
        'backoff 799 #1',
        'backoff 1599 #2',
        'backoff 3199 #3',
        'backoff 6399 #4',
        'backoff 12799 #5',
        'backoff 25599 #6',
        'backoff 29999 #7',
        'backoff 29999 #8',
      ]);
    }),
  );

  it(
    'starts over after a connection stayed up for 2 minutes, not after one that stayed 1:59',
    marbles((m) => {
      const x = errorEvent(503);
      const a = modified(pod('a', '8'));
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          httpError(m, 503),
          httpError(m, 503),
          httpError(m, 503),
          m.cold('a 120s (x|)', { a, x }),
          httpError(m, 503),
          m.cold('a 119s (x|)', { a, x }),
        ],
      });
      expect(backoffs(run(m, source).timeline)).toEqual([
        'backoff 400 #1',
        'backoff 800 #2',
        'backoff 1600 #3',
        'backoff 400 #1',
        'backoff 800 #2',
        'backoff 1600 #3',
      ]);
    }),
  );

  it(
    'never retries sooner than Retry-After',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          httpError(m, 429, { retryAfterSeconds: 2 }),
          httpError(m, 503, { retryAfterSeconds: 1 }),
          httpError(m, 503, { retryAfterSeconds: 1 }),
        ],
      });
      const { timeline } = run(m, source);
      expect(backoffs(timeline)).toEqual(['backoff 2000 #1', 'backoff 1000 #2', 'backoff 1600 #3']);
      expect(connectingTimes(timeline)).toEqual([0, 2000, 3000, 4600]);
    }),
  );

  it(
    'counts a watch that ends within a second without an event as a failure',
    marbles((m) => {
      const a = modified(pod('a', '5'));
      const source = marbleWatchSource({
        options: { resourceVersion: '1' },
        connections: [m.cold('|'), m.cold('999ms |'), m.cold('1s |'), m.cold('a|', { a })],
      });
      const { timeline } = run(m, source);
      expect(timeline).toEqual([
        '0 connecting 1',
        '0 disconnected too-short 0',
        '0 backoff 400 #1 0',
        '400 connecting 1',
        '1399 disconnected too-short 0',
        '1399 backoff 800 #2 0',
        '2199 connecting 1',
        '3199 disconnected closed',
        '3199 connecting 1',
        '3199 connected',
        '3199 MODIFIED a@5',
        '3200 disconnected closed',
        '3200 connecting 5',
      ]);
    }),
  );

  it(
    'reconnects from the cursor when withBookmarks finds the connection idle',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '1' },
        connections: [
          m.cold('a', { a: modified(pod('a', '5')) }),
          m.cold('b|', { b: bookmark('6') }),
        ],
      });
      const idle = source.pipe(withBookmarks({ idleTimeout: 1000, scheduler: m.scheduler }));
      const { timeline } = run(m, idle, {}, 3000);
      // Idle is checked every 500 ms: 1500 ms after a's (the tick at 500 saw it), 1000 ms after
      // a connection that sent nothing.
      expect(timeline).toEqual([
        '0 connecting 1',
        '0 connected',
        '0 MODIFIED a@5',
        '1500 disconnected error 0',
        '1500 backoff 400 #1 0',
        '1900 connecting 5',
        '1900 connected',
        '1900 BOOKMARK 6',
        '1901 disconnected closed',
        '1901 connecting 6',
        '2901 disconnected error 0',
        '2901 backoff 800 #2 0',
      ]);
      expect(source.connections.every((c) => c.allowWatchBookmarks)).toBe(true);
    }),
  );

  it.each([
    ['a network failure', watchError(0, 'ECONNRESET')],
    ['500', watchError(500)],
    ['503', watchError(503)],
    ['429', watchError(429)],
    ['408', watchError(408)],
    ['an unreadable stream', watchError(0, 'bad line', { errorType: 'PARSE_ERROR' })],
  ])('treats %s as transient, as an ERROR event or as an error', (_name, error) =>
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          m.cold('(x|)', { x: { type: 'ERROR', error } }),
          m.cold('#', undefined, error),
        ],
      });
      const { timeline } = run(m, source);
      expect(backoffs(timeline)).toEqual([`backoff 400 #1`, `backoff 800 #2`]);
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['7', '7', '7']);
    })(),
  );
});

describe('resumeFromResourceVersion: giving up', () => {
  it(
    'starts nothing more once unsubscribed from inside onLifecycle (a caller giving up on a backoff)',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [httpError(m, 503), m.cold('a', { a: modified(pod('a', '8')) })],
      });
      const steps: string[] = [];
      let subscription: Subscription | undefined = undefined;
      subscription = source
        .pipe(
          resumeFromResourceVersion({
            scheduler: m.scheduler,
            random: () => 0.5,
            onLifecycle: (event) => {
              steps.push(event.type);
              if (event.type === 'backoff') subscription?.unsubscribe();
            },
          }),
        )
        .subscribe();
      m.flush();
      expect(steps).toEqual(['connecting', 'disconnected', 'backoff']);
      expect(source.connections).toHaveLength(1);
      expect(m.scheduler.actions).toHaveLength(0);
    }),
  );

  it(
    'starts nothing more when the stream it feeds errors from inside onLifecycle',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          m.cold('-(x|)', { x: errorEvent(503) }),
          m.cold('a', { a: modified(pod('a', '8')) }),
        ],
      });
      const stop = new Subject<never>();
      const failure = new Error('gave up');
      const steps: string[] = [];
      let error: unknown;
      merge(
        source.pipe(
          resumeFromResourceVersion({
            scheduler: m.scheduler,
            random: () => 0.5,
            onLifecycle: (event) => {
              steps.push(event.type);
              if (event.type === 'backoff') stop.error(failure);
            },
          }),
        ),
        stop,
      ).subscribe({ error: (e: unknown) => (error = e) });
      m.flush();
      expect(error).toBe(failure);
      expect(steps).toEqual(['connecting', 'disconnected', 'backoff']);
      expect(source.connections).toHaveLength(1);
      expect(m.scheduler.actions).toHaveLength(0);
    }),
  );

  it.each([400, 403, 404, 422])(
    'errors the stream on %i, as an ERROR event or as an error',
    (code) =>
      marbles((m) => {
        const inStream = marbleWatchSource({
          options: { resourceVersion: '7' },
          connections: [httpError(m, code)],
        });
        const result = run(m, inStream);
        expect(result.error).toBeInstanceOf(WatchError);
        expect(result.error).toMatchObject({ statusCode: code });
        expect(result.timeline).toEqual(['0 connecting 7', `0 disconnected error ${code}`]);
        expect(inStream.connections).toHaveLength(1);

        const failure = watchError(code);
        const thrown = marbleWatchSource({
          options: { resourceVersion: '7' },
          connections: [m.cold('#', undefined, failure)],
        });
        expect(run(m, thrown).error).toBe(failure);
      })(),
  );

  it(
    "with onRefused: 'retry', backs off on 403, 404 and a second 401 in a row, and goes on",
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          httpError(m, 403),
          httpError(m, 404),
          httpError(m, 401),
          httpError(m, 401),
          m.cold('a', { a: modified(pod('a', '8')) }),
        ],
      });
      const result = run(m, source, { onRefused: 'retry' });
      expect(result.error).toBeUndefined();
      expect(backoffs(result.timeline)).toEqual([
        'backoff 400 #1',
        'backoff 800 #2',
        'backoff 0 #3', // a first 401: credentials resolved afresh, at once
        'backoff 3200 #4', // a second in a row: refused, retried with the backoff
      ]);
      expect(result.events.map((e) => e.type)).toEqual(['MODIFIED']);
      expect(new Set(source.connections.map((c) => c.resourceVersion))).toEqual(new Set(['7']));
    }),
  );

  it(
    'retries a 401 once at once (credentials are resolved afresh), and errors on a second in a row',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          httpError(m, 401),
          m.cold('a(x|)', { a: modified(pod('a', '8')), x: errorEvent(401) }),
          httpError(m, 503),
          httpError(m, 401),
          httpError(m, 401),
        ],
      });
      const result = run(m, source);
      expect(backoffs(result.timeline)).toEqual([
        'backoff 0 #1',
        'backoff 0 #2', // not in a row: an event came in between
        'backoff 1600 #3',
        'backoff 0 #4', // not in a row: a 503 came in between
      ]);
      expect(result.error).toMatchObject({ errorType: 'UNAUTHORIZED_ERROR' });
      expect(source.connections).toHaveLength(5);
    }),
  );

  it(
    'retries a list answered 401 once too, and a list that succeeds ends the 401s in a row',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [
          m.cold('#', undefined, watchError(401)),
          m.cold('(l|)', { l: listOf([pod('a', '3')], '3') }),
        ],
        connections: [httpError(m, 401)],
      });
      const result = run(m, source);
      expect(result.timeline).toEqual([
        '0 relist-start',
        '0 backoff 0 #1 401',
        '0 relist-start',
        '0 ADDED a@3',
        '0 BOOKMARK 3 end',
        '0 relist-end 1',
        '0 connecting 3',
        '0 disconnected error 401',
        '0 backoff 0 #2 401',
        '0 connecting 3',
      ]);
      expect(result.error).toBeUndefined();
    }),
  );

  it(
    'gives up after maxRetries consecutive failures, with the last error',
    marbles((m) => {
      const last = watchError(503, 'the third');
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [httpError(m, 503), httpError(m, 500), m.cold('#', undefined, last)],
      });
      const result = run(m, source, { maxRetries: 2 });
      expect(result.error).toBe(last);
      expect(backoffs(result.timeline)).toEqual(['backoff 400 #1', 'backoff 800 #2']);
      expect(result.timeline.at(-1)).toBe('1200 disconnected error 503');

      const none = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [httpError(m, 503)],
      });
      expect(run(m, none, { maxRetries: 0 }).error).toMatchObject({ statusCode: 503 });
    }),
  );

  it(
    'counts a list that succeeds as the end of a run of failures toward maxRetries',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [
          m.cold('#', undefined, watchError(503)),
          m.cold('(l|)', { l: listOf([pod('a', '3')], '3') }),
        ],
        connections: [httpError(m, 503), m.cold('-')],
      });
      const result = run(m, source, { maxRetries: 1 });
      expect(result.error).toBeUndefined();
      expect(backoffs(result.timeline)).toEqual(['backoff 400 #1', 'backoff 800 #2']);
      expect(source.connections).toHaveLength(2);
    }),
  );

  it(
    'counts a watch the server ended in due course as the end of a run of 401s',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [httpError(m, 401), m.cold('1s |'), httpError(m, 401), m.cold('-')],
      });
      const result = run(m, source);
      expect(result.error).toBeUndefined();
      expect(result.timeline).toEqual([
        '0 connecting 7',
        '0 disconnected error 401',
        '0 backoff 0 #1 401',
        '0 connecting 7',
        '1000 disconnected closed',
        '1000 connecting 7',
        '1000 disconnected error 401',
        '1000 backoff 0 #2 401',
        '1000 connecting 7',
      ]);
    }),
  );

  it(
    'counts only failures since the last event toward maxRetries, while the backoff keeps growing',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          m.cold('a#', { a: modified(pod('a', '8')) }, watchError(503)),
          m.cold('b#', { b: modified(pod('a', '9')) }, watchError(503)),
          m.cold('c#', { c: modified(pod('a', '10')) }, watchError(503)),
          m.cold('-'),
        ],
      });
      const result = run(m, source, { maxRetries: 1 });
      expect(result.error).toBeUndefined();
      expect(backoffs(result.timeline)).toEqual([
        'backoff 400 #1',
        'backoff 800 #2',
        'backoff 1600 #3',
      ]);
    }),
  );

  it(
    'passes an error that is not a WatchError through untouched',
    marbles((m) => {
      const bug = new TypeError('a bug upstream');
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [m.cold('#', undefined, bug)],
      });
      const result = run(m, source);
      expect(result.error).toBe(bug);
      expect(result.timeline).toEqual(['0 connecting 7']);
      const noList = marbleWatchSource();
      expect(String(run(m, noList).error)).toMatch(/list #1 was asked for/);
    }),
  );
});

describe('resumeFromResourceVersion: 410 Gone', () => {
  it(
    'keyed by uid: a pod re-created under the same name during the gap is DELETED (old uid) then ADDED (new uid), and a uid-keyed store keeps only the new one',
    marbles((m) => {
      const byUid = (o: V1Pod) => o.metadata!.uid!;
      const old = pod('a', '3', { metadata: { uid: 'uid-1' } });
      const recreated = pod('a', '7', { metadata: { uid: 'uid-2' } });
      const source = marbleWatchSource({
        lists: [
          m.cold('(l|)', { l: listOf([old], '3') }),
          m.cold('(l|)', { l: listOf([recreated], '8') }),
        ],
        connections: [m.cold('-k(x|)', { k: bookmark('5'), x: errorEvent(410, 'Expired') })],
      });
      const result = run(m, source, { key: byUid });
      expect(result.timeline).toEqual([
        '0 relist-start',
        '0 ADDED a@3',
        '0 BOOKMARK 3 end',
        '0 relist-end 1',
        '0 connecting 3',
        '1 connected',
        '1 BOOKMARK 5',
        '2 disconnected error 410',
        '2 expired',
        '2 relist-start',
        '2 DELETED a@3',
        '2 ADDED a@7',
        '2 BOOKMARK 8 end',
        '2 relist-end 1',
        '2 connecting 8',
      ]);
      expect(result.events.slice(3, 5)).toEqual([
        { type: 'DELETED', object: old, resourceVersion: '3' },
        added(recreated),
      ]);
      // The store the user keys by uid ends with the object the server has, and only it.
      let store: Store<V1Pod> | undefined;
      from(result.events as WatchEvent<V1Pod>[])
        .pipe(toStore({ key: byUid }))
        .subscribe((s) => (store = s));
      expect(store?.values()).toEqual([recreated]);
    }),
  );

  it(
    'relists and emits only the difference: DELETED with the last known object first, then MODIFIED and ADDED in list order, nothing for unchanged',
    marbles((m) => {
      const c5 = pod('c', '5');
      const source = marbleWatchSource({
        lists: [
          m.cold('(l|)', { l: listOf([pod('a', '3'), pod('b', '4'), c5], '5') }),
          m.cold('(l|)', { l: listOf([pod('a', '6'), pod('b', '7'), pod('d', '8')], '9') }),
        ],
        connections: [
          m.cold('mxz|', {
            m: modified(pod('a', '6')),
            x: errorEvent(410, 'Expired'),
            z: modified(pod('c', '20')),
          }),
        ],
      });
      const result = run(m, source);
      expect(result.timeline).toEqual([
        '0 relist-start',
        '0 ADDED a@3',
        '0 ADDED b@4',
        '0 ADDED c@5',
        '0 BOOKMARK 5 end',
        '0 relist-end 3',
        '0 connecting 5',
        '0 connected',
        '0 MODIFIED a@6',
        '1 disconnected error 410',
        '1 expired',
        '1 relist-start',
        '1 DELETED c@5',
        '1 MODIFIED b@7',
        '1 ADDED d@8',
        '1 BOOKMARK 9 end',
        '1 relist-end 3',
        '1 connecting 9',
      ]);
      expect(result.events.find((e) => e.type === 'DELETED')).toEqual({
        type: 'DELETED',
        object: c5,
        resourceVersion: '5',
      });
    }),
  );

  it(
    'relists at once on an HTTP 410 when resuming from an old version',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '1' },
        connections: [httpError(m, 410, { reason: 'Gone' })],
        lists: [m.cold('(l|)', { l: listOf([pod('a', '3')], '5') })],
      });
      expect(run(m, source).timeline).toEqual([
        '0 connecting 1',
        '0 disconnected error 410',
        '0 expired',
        '0 relist-start',
        '0 ADDED a@3',
        '0 BOOKMARK 5 end',
        '0 relist-end 1',
        '0 connecting 5',
      ]);
    }),
  );

  it(
    'backs off before relisting when the version it just listed at is already gone',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [httpError(m, 410)],
        lists: [
          m.cold('(l|)', { l: listOf([pod('a', '3')], '5') }),
          m.cold('(l|)', { l: listOf([pod('a', '3')], '6') }),
        ],
      });
      expect(run(m, source).timeline).toEqual([
        '0 relist-start',
        '0 ADDED a@3',
        '0 BOOKMARK 5 end',
        '0 relist-end 1',
        '0 connecting 5',
        '0 disconnected error 410',
        '0 expired',
        '0 backoff 400 #1 410',
        '400 relist-start',
        '400 BOOKMARK 6 end',
        '400 relist-end 1',
        '400 connecting 6',
      ]);
    }),
  );

  it(
    'relists at once on a 410 long after the last sync, even with nothing delivered since (after an outage spent backing off)',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [httpError(m, 503), httpError(m, 503), httpError(m, 410)],
        lists: [
          m.cold('(l|)', { l: listOf([pod('a', '3')], '5') }),
          m.cold('(l|)', { l: listOf([pod('a', '3')], '9') }),
        ],
      });
      expect(run(m, source).timeline.slice(4)).toEqual([
        '0 connecting 5',
        '0 disconnected error 503',
        '0 backoff 400 #1 503',
        '400 connecting 5',
        '400 disconnected error 503',
        '400 backoff 800 #2 503',
        '1200 connecting 5',
        '1200 disconnected error 410',
        '1200 expired',
        // 1.2 s after the sync: no second backoff before the relist.
        '1200 relist-start',
        '1200 BOOKMARK 9 end',
        '1200 relist-end 1',
        '1200 connecting 9',
      ]);
    }),
  );

  it(
    "errors with the GONE WatchError under onExpired: 'error'",
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '1' },
        connections: [m.cold('(x|)', { x: errorEvent(410, 'Expired') })],
      });
      const result = run(m, source, { onExpired: 'error' });
      expect(result.error).toMatchObject({ errorType: 'GONE', statusCode: 410 });
      expect(result.timeline).toEqual(['0 connecting 1', '0 disconnected error 410', '0 expired']);
      expect(source.lists).toEqual([]);
    }),
  );

  it(
    'retries a failed list after a backoff: an error, an empty answer, a 410',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [
          m.cold('#', undefined, watchError(503)),
          m.cold('|'),
          m.cold('#', undefined, watchError(410)),
          m.cold('(l|)', { l: listOf([pod('a', '3')], '3') }),
        ],
      });
      const result = run(m, source);
      expect(result.timeline).toEqual([
        '0 relist-start',
        '0 backoff 400 #1 503',
        '400 relist-start',
        '400 backoff 800 #2 0',
        '1200 relist-start',
        '1200 expired',
        '1200 backoff 1600 #3 410',
        '2800 relist-start',
        '2800 ADDED a@3',
        '2800 BOOKMARK 3 end',
        '2800 relist-end 1',
        '2800 connecting 3',
      ]);
    }),
  );
});
