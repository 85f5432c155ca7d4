import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { NEVER, concat, finalize, of, throwError, type Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { resumeFromResourceVersion } from '../../src/operators/resumeFromResourceVersion.js';
import { withBookmarks } from '../../src/operators/withBookmarks.js';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  added,
  bookmark,
  deleted,
  errorEvent,
  listOf,
  modified,
  pod,
  watchError,
} from '../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../src/testing/marbles/marbleWatchSource.js';
import type { WatchEvent } from '../../src/types.js';
import { backoffs, httpError, run } from './support/resumeHarness.js';

const end = (rv: string) => bookmark(rv, { initialEventsEnd: true });

/** A key function (the pod's name) that records the version of every object it is asked for. */
function keyRecorder(): { keyed: string[]; key: (object: V1Pod) => string } {
  const keyed: string[] = [];
  const key = (object: V1Pod) => {
    keyed.push(object.metadata!.resourceVersion!);
    return object.metadata!.name!;
  };
  return { keyed, key };
}

describe('resumeFromResourceVersion: initial state', () => {
  it(
    "'list' (default) emits every item as ADDED and the end BOOKMARK, then watches from the list version",
    marbles((m) => {
      const l = listOf([pod('a', '3'), pod('b', '4')], '4');
      const source = marbleWatchSource({ lists: [m.cold('-(l|)', { l })] });
      const e: WatchEvent = {
        type: 'BOOKMARK',
        resourceVersion: '4',
        object: {
          apiVersion: 'v1',
          metadata: {
            resourceVersion: '4',
            annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
          },
        },
      };
      m.expect(
        source.pipe(resumeFromResourceVersion({ scheduler: m.scheduler, random: () => 0.5 })),
      ).toBeObservable('-(abe)', { a: added(pod('a', '3')), b: added(pod('b', '4')), e });
      m.flush();
      expect(source.lists).toEqual([{}]);
      expect(source.connections).toEqual([
        { resourceVersion: '4', allowWatchBookmarks: true, timeoutSeconds: 450 },
      ]);
    }),
  );

  it(
    'names the group version in the end BOOKMARK of a list',
    marbles((m) => {
      const source = marbleWatchSource({
        resource: { group: 'apps', version: 'v1', plural: 'deployments' },
        lists: [m.cold('(l|)', { l: listOf([], '8') })],
      });
      const { events } = run(m, source);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'BOOKMARK',
          object: expect.objectContaining({ apiVersion: 'apps/v1' }),
        }),
      ]);
    }),
  );

  it(
    'follows the version of every ADDED, MODIFIED, DELETED and BOOKMARK and reconnects at once when the server closes',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [m.cold('(l|)', { l: listOf([pod('a', '3')], '3') })],
        connections: [
          m.cold('-m|', { m: modified(pod('a', '5')) }),
          m.cold('-b|', { b: bookmark('7') }),
          m.cold('-d|', { d: deleted(pod('a', '8')) }),
          m.cold('-n|', { n: added(pod('c', '9')) }),
        ],
      });
      const { timeline } = run(m, source);
      expect(timeline).toEqual([
        '0 relist-start',
        '0 ADDED a@3',
        '0 BOOKMARK 3 end',
        '0 relist-end 1',
        '0 connecting 3',
        '1 connected',
        '1 MODIFIED a@5',
        '2 disconnected closed',
        '2 connecting 5',
        '3 connected',
        '3 BOOKMARK 7',
        '4 disconnected closed',
        '4 connecting 7',
        '5 connected',
        '5 DELETED a@8',
        '6 disconnected closed',
        '6 connecting 8',
        '7 connected',
        '7 ADDED c@9',
        '8 disconnected closed',
        '8 connecting 9',
      ]);
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['3', '5', '7', '8', '9']);
    }),
  );

  it(
    'keeps the cursor when an event carries no version',
    marbles((m) => {
      const bare: WatchEvent = { type: 'MODIFIED', object: { metadata: { name: 'x' } } };
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [m.cold('n|', { n: bare })],
      });
      run(m, source);
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['5', '5']);
    }),
  );

  it(
    'starts from the resourceVersion of the source options without listing',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5', namespace: 'default' },
        connections: [m.cold('m|', { m: modified(pod('a', '6')) })],
      });
      const { timeline } = run(m, source);
      expect(timeline.slice(0, 3)).toEqual(['0 connecting 5', '0 connected', '0 MODIFIED a@6']);
      expect(source.lists).toEqual([]);
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['5', '6']);
      expect(source.connections[0]?.namespace).toBe('default');
    }),
  );

  it(
    "'none' watches without a version and never resumes from the unordered initial ADDED burst",
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [m.cold('ab|', { a: added(pod('a', '9')), b: added(pod('b', '3')) })],
        lists: [
          m.cold('(l|)', { l: listOf([pod('a', '9'), pod('b', '3'), pod('c', '10')], '11') }),
        ],
      });
      const { timeline } = run(m, source, { initialState: 'none' });
      expect(timeline).toEqual([
        '0 connecting -',
        '0 connected',
        '0 ADDED a@9',
        '1 ADDED b@3',
        '2 disconnected closed',
        // No safe version to resume from, and state was delivered: a relist diff, not a replay.
        '2 relist-start',
        '2 ADDED c@10',
        '2 BOOKMARK 11 end',
        '2 relist-end 3',
        '2 connecting 11',
      ]);
      expect(source.connections[0]).toEqual({ allowWatchBookmarks: true, timeoutSeconds: 450 });
    }),
  );

  it(
    "'none' takes the cursor from the first event after the burst",
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [
          m.cold('abk|', { a: added(pod('a', '9')), b: added(pod('b', '3')), k: bookmark('12') }),
        ],
      });
      run(m, source, { initialState: 'none' });
      expect(source.connections.map((c) => c.resourceVersion)).toEqual([undefined, '12']);
      expect(source.lists).toEqual([]);
    }),
  );

  it(
    "'none' follows every event once the burst is over, ADDED included",
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [
          m.cold('akc|', { a: added(pod('a', '9')), k: bookmark('12'), c: added(pod('c', '13')) }),
        ],
      });
      run(m, source, { initialState: 'none' });
      expect(source.connections.map((c) => c.resourceVersion)).toEqual([undefined, '13']);
    }),
  );

  it(
    "'none' starts afresh without a version when nothing was delivered yet",
    marbles((m) => {
      const source = marbleWatchSource({ connections: [m.cold('1s |')] });
      const { timeline } = run(m, source, { initialState: 'none' });
      expect(timeline).toEqual(['0 connecting -', '1000 disconnected closed', '1000 connecting -']);
      expect(source.lists).toEqual([]);
    }),
  );

  it(
    'treats resourceVersion "0" as a fresh start: its burst is no cursor either',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '0' },
        connections: [m.cold('a|', { a: added(pod('a', '9')) })],
        lists: [m.cold('(l|)', { l: listOf([pod('a', '9')], '10') })],
      });
      run(m, source);
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['0', '10']);
      expect(source.lists).toHaveLength(1);
    }),
  );

  it(
    "treats resourceVersion '' as no version (it is not sent): under 'none' its burst is no cursor",
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '' },
        connections: [m.cold('ab|', { a: added(pod('a', '9')), b: added(pod('b', '3')) })],
        lists: [m.cold('(l|)', { l: listOf([pod('a', '9'), pod('b', '3')], '11') })],
      });
      const { timeline } = run(m, source, { initialState: 'none' });
      expect(timeline[0]).toBe('0 connecting -');
      expect(source.connections.map((c) => c.resourceVersion)).toEqual([undefined, '11']);
      expect(source.lists).toHaveLength(1);
    }),
  );
});

describe("resumeFromResourceVersion: initialState 'watch-list'", () => {
  it(
    'streams the initial events, takes the cursor from the end bookmark, then watches on',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [
          m.cold('abpe-n|', {
            a: added(pod('a', '3')),
            b: added(pod('b', '5')),
            p: bookmark('4'),
            e: end('7'),
            n: added(pod('c', '8')),
          }),
        ],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual([
        '0 relist-start',
        '0 connecting -',
        '0 connected',
        '0 ADDED a@3',
        '1 ADDED b@5',
        '3 BOOKMARK 7 end',
        '3 relist-end 2',
        '5 ADDED c@8',
        '6 disconnected closed',
        '6 connecting 8',
      ]);
      expect(source.connections).toEqual([
        {
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          allowWatchBookmarks: true,
          timeoutSeconds: 450,
        },
        { resourceVersion: '8', allowWatchBookmarks: true, timeoutSeconds: 450 },
      ]);
    }),
  );

  it(
    'never resumes from an initial event: a failure before the end bookmark redoes the watch-list as a diff',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [
          m.cold('ab(x|)', {
            a: added(pod('a', '3')),
            b: added(pod('b', '5')),
            x: errorEvent(503),
          }),
          m.cold('ace', { a: added(pod('a', '3')), c: added(pod('c', '6')), e: end('7') }),
        ],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual([
        '0 relist-start',
        '0 connecting -',
        '0 connected',
        '0 ADDED a@3',
        '1 ADDED b@5',
        '2 disconnected error 503',
        '2 backoff 400 #1 503',
        '402 relist-start',
        '402 connecting -',
        '402 connected',
        // Something was delivered: the difference waits for the end bookmark, deletions first.
        '404 DELETED b@5',
        '404 ADDED c@6',
        '404 BOOKMARK 7 end',
        '404 relist-end 2',
      ]);
      expect(source.connections[1]).toMatchObject({ sendInitialEvents: true });
      expect(source.connections[1]?.resourceVersion).toBeUndefined();
    }),
  );

  it(
    'backs off before redoing a watch-list whose initial events hit 410',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [m.cold('a(x|)', { a: added(pod('a', '3')), x: errorEvent(410, 'Expired') })],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline.slice(4)).toEqual([
        '1 disconnected error 410',
        '1 expired',
        '1 backoff 400 #1 410',
        '401 relist-start',
        '401 connecting -',
      ]);
    }),
  );

  it(
    'passes a DELETED among the initial events on',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [
          m.cold('abde', {
            a: added(pod('a', '3')),
            b: added(pod('b', '5')),
            d: deleted(pod('b', '6')),
            e: end('7'),
          }),
        ],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline.slice(3)).toEqual([
        '0 ADDED a@3',
        '1 ADDED b@5',
        '2 DELETED b@6',
        '3 BOOKMARK 7 end',
        '3 relist-end 1',
      ]);
    }),
  );

  it(
    'falls back to a list when the server refuses (422), and keeps listing for later relists',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [
          httpError(m, 422, { reason: 'Invalid' }),
          m.cold('m(x|)', { m: modified(pod('a', '4')), x: errorEvent(410, 'Expired') }),
        ],
        lists: [
          m.cold('(l|)', { l: listOf([pod('a', '3')], '3') }),
          m.cold('(l|)', { l: listOf([pod('a', '4')], '9') }),
        ],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual([
        '0 relist-start',
        '0 connecting -',
        '0 disconnected error 422',
        '0 ADDED a@3',
        '0 BOOKMARK 3 end',
        '0 relist-end 1',
        '0 connecting 3',
        '0 connected',
        '0 MODIFIED a@4',
        '1 disconnected error 410',
        '1 expired',
        '1 relist-start',
        '1 BOOKMARK 9 end',
        '1 relist-end 1',
        '1 connecting 9',
      ]);
      expect(source.connections.map((c) => c.sendInitialEvents)).toEqual([
        true,
        undefined,
        undefined,
      ]);
      expect(source.lists).toHaveLength(2);
    }),
  );

  it(
    'falls back to a list when the server ends the watch before the end bookmark (it ignored sendInitialEvents)',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [m.cold('a 2s |', { a: added(pod('a', '3')) })],
        lists: [m.cold('(l|)', { l: listOf([pod('b', '4')], '5') })],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual([
        '0 relist-start',
        '0 connecting -',
        '0 connected',
        '0 ADDED a@3',
        '2001 disconnected closed',
        '2001 DELETED a@3',
        '2001 ADDED b@4',
        '2001 BOOKMARK 5 end',
        '2001 relist-end 1',
        '2001 connecting 5',
      ]);
    }),
  );

  it(
    'falls back on 403 too, and the list refused the same way errors the stream',
    marbles((m) => {
      const forbidden = watchError(403, 'pods is forbidden');
      const source = marbleWatchSource({
        connections: [httpError(m, 403)],
        lists: [m.cold('#', undefined, forbidden)],
      });
      const result = run(m, source, { initialState: 'watch-list' });
      expect(result.error).toBe(forbidden);
      expect(source.connections).toHaveLength(1);
      expect(source.lists).toHaveLength(1);
    }),
  );
});

describe('resumeFromResourceVersion: what reaches downstream', () => {
  it(
    'drops an ADDED or MODIFIED repeating the (key, resourceVersion) last delivered',
    marbles((m) => {
      const a = added(pod('a', '3'));
      const a4 = modified(pod('a', '4'));
      const other = modified(pod('a', '4', { metadata: { namespace: 'prod' } }));
      const source = marbleWatchSource({
        options: { resourceVersion: '2' },
        connections: [m.cold('aa-mm-n', { a, m: a4, n: other })],
      });
      m.expect(source.pipe(resumeFromResourceVersion({ scheduler: m.scheduler }))).toBeObservable(
        'a--m--n',
        { a, m: a4, n: other },
      );
    }),
  );

  it(
    'asks its key function once per ADDED, MODIFIED or DELETED it passes on, and never for a BOOKMARK',
    marbles((m) => {
      // The repeat check and the record of what was delivered share one key (issue 20).
      const { keyed, key } = keyRecorder();
      const source = marbleWatchSource({
        options: { resourceVersion: '2' },
        connections: [
          m.cold('abcd', {
            a: added(pod('a', '3')),
            b: modified(pod('a', '4')),
            c: bookmark('5'),
            d: deleted(pod('a', '6')),
          }),
        ],
      });
      m.expect(
        source.pipe(resumeFromResourceVersion<V1Pod>({ scheduler: m.scheduler, key })),
      ).toBeObservable('abcd', {
        a: added(pod('a', '3')),
        b: modified(pod('a', '4')),
        c: bookmark('5'),
        d: deleted(pod('a', '6')),
      });
      m.flush();
      expect(keyed).toEqual(['3', '4', '6']);
    }),
  );

  it(
    'asks its key function once per object of a list or of a watch-list, not again to record it',
    marbles((m) => {
      const { keyed, key } = keyRecorder();
      const listed = marbleWatchSource<V1Pod>({
        lists: [m.cold('(l|)', { l: listOf([pod('a', '3'), pod('b', '4')], '4') })],
        connections: [m.cold('-')],
      });
      listed.pipe(resumeFromResourceVersion<V1Pod>({ scheduler: m.scheduler, key })).subscribe();
      m.flush();
      expect(keyed).toEqual(['3', '4']);

      keyed.length = 0;
      const streamed = marbleWatchSource<V1Pod>({
        connections: [
          m.cold('ab(e)', {
            a: added(pod('a', '3')),
            b: added(pod('b', '4')),
            e: bookmark('4', { initialEventsEnd: true }),
          }),
        ],
      });
      streamed
        .pipe(
          resumeFromResourceVersion<V1Pod>({
            scheduler: m.scheduler,
            key,
            initialState: 'watch-list',
          }),
        )
        .subscribe();
      m.flush();
      expect(keyed).toEqual(['3', '4']);
    }),
  );

  it(
    'drops list items the consumer already has, and a replayed ADDED after reconnecting',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [m.cold('(l|)', { l: listOf([pod('a', '3'), pod('b', '4')], '4') })],
        connections: [m.cold('ab|', { a: added(pod('a', '3')), b: added(pod('b', '5')) })],
      });
      const { timeline } = run(m, source);
      expect(timeline.filter((line) => /ADDED|MODIFIED/.test(line))).toEqual([
        '0 ADDED a@3',
        '0 ADDED b@4',
        '1 ADDED b@5',
      ]);
    }),
  );

  it(
    'never lets an ERROR event through, and closes the connection that sent it',
    marbles((m) => {
      const a = modified(pod('a', '3'));
      const c = modified(pod('a', '9'));
      const first = m.cold('axb|', { a, x: errorEvent(500), b: modified(pod('a', '4')) });
      const source = marbleWatchSource({
        options: { resourceVersion: '2' },
        connections: [first, m.cold('c', { c })],
      });
      m.expect(
        source.pipe(resumeFromResourceVersion({ scheduler: m.scheduler, random: () => 0.5 })),
      ).toBeObservable('a 400ms c', { a, c });
      m.has(first, '^!');
      m.flush();
      expect(source.connections[1]?.resourceVersion).toBe('3');
    }),
  );

  it(
    'copes with a source that answers synchronously: nothing after its ERROR counts, and it is closed',
    marbles((m) => {
      const x = errorEvent(500);
      let tornDown = false;
      const source = marbleWatchSource({
        options: { resourceVersion: '7' },
        connections: [
          of(x, modified(pod('a', '8'))),
          concat(
            of(x),
            throwError(() => watchError(503)),
          ),
          concat(of(x), NEVER).pipe(finalize(() => (tornDown = true))),
        ],
      });
      const { timeline } = run(m, source);
      expect(backoffs(timeline)).toEqual(['backoff 400 #1', 'backoff 800 #2', 'backoff 1600 #3']);
      expect(timeline.filter((line) => line.includes('MODIFIED'))).toEqual([]);
      expect(tornDown).toBe(true);
      expect(source.connections.map((c) => c.resourceVersion)).toEqual(['7', '7', '7', '7']);
    }),
  );

  it(
    'aborts the connection in flight when unsubscribed',
    marbles((m) => {
      const connection = m.cold('-a---', { a: modified(pod('a', '3')) });
      const source = marbleWatchSource({
        options: { resourceVersion: '2' },
        connections: [connection],
      });
      m.expect(
        source.pipe(resumeFromResourceVersion({ scheduler: m.scheduler })),
        '^--!',
      ).toBeObservable('-a-', { a: modified(pod('a', '3')) });
      m.has(connection, '^--!');
    }),
  );

  it(
    'keeps state per subscription: each subscriber lists and gets everything',
    marbles((m) => {
      const l = listOf([pod('a', '3')], '3');
      const source = marbleWatchSource({ lists: [m.cold('(l|)', { l }), m.cold('(l|)', { l })] });
      const resumed = source.pipe(resumeFromResourceVersion({ scheduler: m.scheduler }));
      const seen: string[] = [];
      resumed.subscribe((e) => seen.push(`1 ${e.type}`));
      resumed.subscribe((e) => seen.push(`2 ${e.type}`));
      m.flush();
      expect(seen).toEqual(['1 ADDED', '1 BOOKMARK', '2 ADDED', '2 BOOKMARK']);
      expect(source.lists).toHaveLength(2);
    }),
  );

  it(
    'stops emitting a relist diff as soon as downstream unsubscribes',
    marbles((m) => {
      const l = listOf([pod('a', '3'), pod('b', '4'), pod('c', '5')], '5');
      const source = marbleWatchSource({ lists: [m.cold('(l|)', { l })] });
      const seen: string[] = [];
      const lifecycle: string[] = [];
      const subscription = source
        .pipe(
          resumeFromResourceVersion({
            scheduler: m.scheduler,
            onLifecycle: (e) => lifecycle.push(e.type),
          }),
        )
        .subscribe((e) => {
          seen.push(e.type);
          if (seen.length === 2) subscription.unsubscribe();
        });
      m.flush();
      expect(seen).toEqual(['ADDED', 'ADDED']);
      expect(lifecycle).toEqual(['relist-start']);
      expect(source.connections).toHaveLength(0);
    }),
  );
});

describe('resumeFromResourceVersion: connection options', () => {
  it(
    'draws timeoutSeconds in [300, 600] for every connection unless the source sets it',
    marbles((m) => {
      const draws = [0, 0.5, 0.99999];
      let i = 0;
      const random = () => draws[i++ % draws.length] ?? 0;
      const a = modified(pod('a', '3'));
      const source = marbleWatchSource({
        options: { resourceVersion: '2' },
        connections: [m.cold('a|', { a }), m.cold('a|', { a })],
      });
      run(m, source, { random });
      expect(source.connections.map((c) => c.timeoutSeconds)).toEqual([300, 450, 600]);

      const fixed = marbleWatchSource({ options: { resourceVersion: '2', timeoutSeconds: 30 } });
      run(m, fixed);
      expect(fixed.connections[0]?.timeoutSeconds).toBe(30);
    }),
  );

  it(
    'asks for bookmarks unless the source options say no',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '2', allowWatchBookmarks: false },
      });
      run(m, source);
      expect(source.connections[0]?.allowWatchBookmarks).toBe(false);
      // ...except for a watch-list, whose end bookmark is the point.
      const watchList = marbleWatchSource({ options: { allowWatchBookmarks: false } });
      run(m, watchList, { initialState: 'watch-list' });
      expect(watchList.connections[0]?.allowWatchBookmarks).toBe(true);
    }),
  );

  it(
    'composes in pipe() after withBookmarks, keeping the object type',
    marbles((m) => {
      const source = marbleWatchSource<V1Pod>({
        lists: [m.cold('(l|)', { l: listOf([pod('a', '3')], '3') })],
      });
      const resumed: Observable<WatchEvent<V1Pod>> = source.pipe(
        withBookmarks({ scheduler: m.scheduler }),
        resumeFromResourceVersion({ scheduler: m.scheduler }),
      );
      const names: (string | undefined)[] = [];
      const subscription = resumed.subscribe((e) => {
        if (e.type === 'ADDED') names.push(e.object.spec?.containers[0]?.name);
      });
      m.scheduler.schedule(() => subscription.unsubscribe(), 1000);
      m.flush();
      expect(names).toEqual(['main']);
      expect(source.connections[0]?.allowWatchBookmarks).toBe(true);
    }),
  );

  it('refuses a plain Observable', () => {
    expect(() => of(added(pod('a', '1'))).pipe(resumeFromResourceVersion())).toThrow(
      /resumeFromResourceVersion\(\) needs a WatchSource/,
    );
  });
});
