import { describe, expect, it } from '@jest/globals';
import { of } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { withBookmarks } from '../../src/operators/withBookmarks.js';
import { WatchError } from '../../src/WatchError.js';
import { added, bookmark, listOf, modified, pod } from '../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../src/testing/marbles/marbleWatchSource.js';
import type { WatchEvent } from '../../src/types.js';

const a = added(pod('a', '5'));
const b = bookmark('6');
const m6 = modified(pod('a', '7'));

describe('withBookmarks', () => {
  it(
    'passes events and bookmarks on and errors after idleTimeout of silence since the last one',
    marbles((m) => {
      // Ticks every 2 ms: the one at 4 sees b (at 3), those at 6 and 8 find silence.
      const source = marbleWatchSource({ connections: [m.cold('-a-b-------|', { a, b })] });
      const idle = new WatchError(
        'watch idle: no event or bookmark for 4 ms, the connection is presumed dead',
        { errorType: 'SYSTEM_ERROR', statusCode: 0, resourcePath: '/api/v1/pods' },
      );
      m.expect(
        source.pipe(withBookmarks({ idleTimeout: 4, scheduler: m.scheduler })),
      ).toBeObservable('-a-b----#', { a, b }, idle);
    }),
  );

  // idleTimeout 10 ticks every 5: the silence seen is 10 to 15, never less, never more (15 when
  // the event comes at the very frame of a tick, after it).
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9])(
    'errors 1x to 1.5x idleTimeout after the last event, wherever it falls (event at %i)',
    (last) =>
      marbles((m) => {
        const events = m.cold(`${'-'.repeat(last)}a${'-'.repeat(40)}|`, { a });
        const source = marbleWatchSource({ connections: [events] });
        let erroredAt = -1;
        source
          .pipe(withBookmarks({ idleTimeout: 10, scheduler: m.scheduler }))
          .subscribe({ error: () => (erroredAt = m.scheduler.now()) });
        m.flush();
        expect(erroredAt - last).toBeGreaterThanOrEqual(10);
        expect(erroredAt - last).toBeLessThanOrEqual(15);
      })(),
  );

  it(
    'counts silence from the moment the connection opens',
    marbles((m) => {
      const source = marbleWatchSource({ connections: [m.cold('-------a|', { a })] });
      const connection = source.pipe(withBookmarks({ idleTimeout: 4, scheduler: m.scheduler }));
      let error: unknown;
      connection.subscribe({ error: (e) => (error = e) });
      m.flush();
      expect(error).toBeInstanceOf(WatchError);
      expect(error).toMatchObject({
        errorType: 'SYSTEM_ERROR',
        statusCode: 0,
        resourcePath: '/api/v1/pods',
        message: expect.stringMatching(/idle/),
      });
      expect(m.scheduler.now()).toBe(4);
    }),
  );

  it(
    'names the namespaced or group resource in the idle error',
    marbles((m) => {
      const source = marbleWatchSource({
        resource: { group: 'apps', version: 'v1', plural: 'deployments' },
        options: { namespace: 'prod' },
      });
      let error: WatchError | undefined;
      source
        .pipe(withBookmarks({ idleTimeout: 10, scheduler: m.scheduler }))
        .subscribe({ error: (e: WatchError) => (error = e) });
      m.flush();
      expect(error?.resourcePath).toBe('/apis/apps/v1/namespaces/prod/deployments');
    }),
  );

  it(
    'completes with the connection, or is unsubscribed, and leaves no timer behind',
    marbles((m) => {
      const source = marbleWatchSource({ connections: [m.cold('-a-|', { a })] });
      m.expect(
        source.pipe(withBookmarks({ idleTimeout: 10, scheduler: m.scheduler })),
      ).toBeObservable('-a-|', { a });
      // A timer left behind would still be due: flushing would run virtual time up to it.
      m.flush();
      expect(m.scheduler.now()).toBe(3);
      const open = marbleWatchSource();
      const subscription = open
        .pipe(withBookmarks({ idleTimeout: 100, scheduler: m.scheduler }))
        .subscribe();
      m.scheduler.schedule(() => subscription.unsubscribe(), 5);
      m.flush();
      expect(m.scheduler.now()).toBe(8);
    }),
  );

  it(
    'lets every event re-arm the timer, ERROR values included',
    marbles((m) => {
      const x: WatchEvent = {
        type: 'ERROR',
        error: new WatchError('boom', {
          errorType: 'SYSTEM_ERROR',
          statusCode: 500,
          resourcePath: '',
        }),
      };
      const source = marbleWatchSource({ connections: [m.cold('--a--x--m--|', { a, x, m: m6 })] });
      m.expect(
        source.pipe(withBookmarks({ idleTimeout: 3, scheduler: m.scheduler })),
      ).toBeObservable('--a--x--m--|', { a, x, m: m6 });
    }),
  );

  it(
    'asks every connection for bookmarks and stays a WatchSource (options, withOptions, list)',
    marbles((m) => {
      const l = listOf([pod('a', '5')], '5');
      const source = marbleWatchSource({
        connections: [m.cold('a|', { a }), m.cold('m|', { m: m6 })],
        lists: [m.cold('(l|)', { l })],
        options: { namespace: 'default', allowWatchBookmarks: false },
      });
      const bookmarked = withBookmarks({ scheduler: m.scheduler })(source);
      expect(bookmarked.options).toEqual({ namespace: 'default', allowWatchBookmarks: true });
      m.expect(bookmarked).toBeObservable('a|', { a });
      m.expect(
        bookmarked.withOptions({ resourceVersion: '5', allowWatchBookmarks: undefined }),
      ).toBeObservable('m|', { m: m6 });
      m.expect(bookmarked.list()).toBeObservable('(l|)', { l });
      m.flush();
      expect(source.connections).toEqual([
        { namespace: 'default', allowWatchBookmarks: true },
        { namespace: 'default', allowWatchBookmarks: true, resourceVersion: '5' },
      ]);
      expect(source.lists).toEqual([{ namespace: 'default' }]);
    }),
  );

  it(
    'uses 150 s by default',
    marbles((m) => {
      const source = marbleWatchSource();
      let erroredAt: number | undefined;
      source
        .pipe(withBookmarks({ scheduler: m.scheduler }))
        .subscribe({ error: () => (erroredAt = m.scheduler.now()) });
      m.flush();
      expect(erroredAt).toBe(150_000);
    }),
  );

  it('refuses a plain Observable', () => {
    expect(() => of(added(pod('a', '1'))).pipe(withBookmarks())).toThrow(
      /withBookmarks\(\) needs a WatchSource/,
    );
  });

  it(
    'errors a list that has not answered within idleTimeout, and lets a prompt one through',
    marbles((m) => {
      const l = listOf([pod('a', '5')], '5');
      const source = marbleWatchSource({
        lists: [m.cold('------(l|)', { l }), m.cold('--(l|)', { l })],
      });
      const bookmarked = withBookmarks({ idleTimeout: 4, scheduler: m.scheduler })(source);
      const idle = new WatchError('list idle: no answer within 4 ms', {
        errorType: 'SYSTEM_ERROR',
        statusCode: 0,
        resourcePath: '/api/v1/pods',
      });
      m.expect(bookmarked.list()).toBeObservable('----#', undefined, idle);
      m.expect(bookmarked.list()).toBeObservable('--(l|)', { l });
    }),
  );
});
