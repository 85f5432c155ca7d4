import { describe, expect, it } from '@jest/globals';
import { marbles } from 'rxjs-marbles/jest';
import {
  added,
  bookmark,
  expired,
  listOf,
  modified,
  pod,
} from '../../../src/testing/marbles/builders.js';
import { marbleWatchSource } from '../../../src/testing/marbles/marbleWatchSource.js';

describe('marbleWatchSource', () => {
  it(
    'gives successive connections successive observables and records their options',
    marbles((m) => {
      const a = added(pod('a', '5'));
      const b = modified(pod('a', '6'));
      const source = marbleWatchSource({
        connections: [m.cold('a|', { a }), m.cold('-b|', { b })],
        options: { namespace: 'default' },
      });
      m.expect(source).toBeObservable('a|', { a });
      m.expect(source.withOptions({ resourceVersion: '5' })).toBeObservable('-b|', { b });
      m.flush();
      expect(source.connections).toEqual([
        { namespace: 'default' },
        { namespace: 'default', resourceVersion: '5' },
      ]);
    }),
  );

  it(
    'answers lists in order, with the source namespace and selectors',
    marbles((m) => {
      const l = listOf([pod('a', '3')], '3');
      const source = marbleWatchSource({
        lists: [m.cold('-(l|)', { l })],
        options: { labelSelector: 'app=x' },
      });
      m.expect(source.list({ limit: 10 })).toBeObservable('-(l|)', { l });
      m.flush();
      expect(source.lists).toEqual([{ labelSelector: 'app=x', limit: 10 }]);
    }),
  );

  it(
    'an extra connection is idle, an extra list errors',
    marbles((m) => {
      const source = marbleWatchSource();
      m.expect(source).toBeObservable('----');
      let error: unknown;
      source.list().subscribe({ error: (e) => (error = e) });
      expect(String(error)).toMatch(/list #1 was asked for but only 0 given/);
    }),
  );

  it(
    'hands a connection or list given as a function its options and index; afterLast serves the rest',
    marbles((m) => {
      const a = added(pod('a', '5'));
      const l = listOf([], '5');
      const seen: string[] = [];
      const source = marbleWatchSource({
        connections: [
          m.cold('a|', { a }),
          (options, index) => {
            seen.push(`watch #${index} from ${options.resourceVersion}`);
            return m.cold('|');
          },
        ],
        lists: [
          (options, index) => {
            seen.push(`list #${index} limit ${options.limit}`);
            return m.cold('(l|)', { l });
          },
        ],
        afterLast: m.cold('x|', { x: expired() }),
      });
      m.expect(source).toBeObservable('a|', { a });
      m.expect(source.withOptions({ resourceVersion: '5' })).toBeObservable('|');
      m.expect(source.list({ limit: 7 })).toBeObservable('(l|)', { l });
      m.expect(source).toBeObservable('x|', { x: expired() });
      m.expect(source).toBeObservable('x|', { x: expired() });
      m.flush();
      expect(seen).toEqual(['watch #1 from 5', 'list #0 limit 7']);
      expect(source.connections).toHaveLength(4);
    }),
  );

  it('builds the events a server sends', () => {
    expect(bookmark('9', { initialEventsEnd: true })).toMatchObject({
      type: 'BOOKMARK',
      resourceVersion: '9',
      object: {
        metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
    const gone = expired();
    expect(gone.type === 'ERROR' && gone.error).toMatchObject({
      errorType: 'GONE',
      statusCode: 410,
      reason: 'Expired',
    });
    expect(added(pod('a', '5', { metadata: { namespace: 'prod' } }))).toMatchObject({
      type: 'ADDED',
      resourceVersion: '5',
      object: { metadata: { name: 'a', namespace: 'prod', resourceVersion: '5' } },
    });
  });
});
