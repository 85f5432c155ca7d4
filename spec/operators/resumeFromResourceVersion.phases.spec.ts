// The resumer's state machine, one spec per row of the table in
// src/operators/resume/ResumerPhase.ts: "<from> --<transition>--> <to>". Each states the
// smallest story that takes that transition, as a timeline of lifecycle steps and deliveries in
// virtual time. The other resumeFromResourceVersion specs go into the details of each.
import { describe, expect, it } from '@jest/globals';
import { Subject, merge } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { resumeFromResourceVersion } from '../../src/operators/resumeFromResourceVersion.js';
import {
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
import { httpError, run } from './support/resumeHarness.js';

const end = (rv: string) => bookmark(rv, { initialEventsEnd: true });

describe('resumeFromResourceVersion phases: waiting --resume--> ...', () => {
  it(
    'waiting --resume--> listing: no version to start from',
    marbles((m) => {
      const source = marbleWatchSource({ lists: [m.cold('-')] });
      expect(run(m, source).timeline).toEqual(['0 relist-start']);
      expect(source.lists).toHaveLength(1);
    }),
  );

  it(
    "waiting --resume--> initial-events: no version, initialState 'watch-list'",
    marbles((m) => {
      const source = marbleWatchSource({ connections: [m.cold('-')] });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual(['0 relist-start', '0 connecting -']);
      expect(source.connections[0]).toMatchObject({ sendInitialEvents: true });
    }),
  );

  it(
    'waiting --resume--> watching: a version in the source options',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [m.cold('-')],
      });
      expect(run(m, source).timeline).toEqual(['0 connecting 5']);
      expect(source.lists).toEqual([]);
    }),
  );
});

describe('resumeFromResourceVersion phases: listing', () => {
  it(
    'listing --listed--> watching from the list version, after the difference and the end bookmark',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [m.cold('-(l|)', { l: listOf([pod('a', '3')], '4') })],
        connections: [m.cold('-')],
      });
      expect(run(m, source).timeline).toEqual([
        '0 relist-start',
        '1 ADDED a@3',
        '1 BOOKMARK 4 end',
        '1 relist-end 1',
        '1 connecting 4',
      ]);
    }),
  );

  it(
    'listing --failed--> waiting (backoff) --resume--> listing',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [m.cold('#', undefined, watchError(503)), m.cold('-')],
      });
      expect(run(m, source).timeline).toEqual([
        '0 relist-start',
        '0 backoff 400 #1 503',
        '400 relist-start',
      ]);
    }),
  );
});

describe('resumeFromResourceVersion phases: initial-events', () => {
  it(
    'initial-events --end bookmark--> watching: the same watch goes on, its events move the cursor',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [
          m.cold('ae-m|', { a: added(pod('a', '3')), e: end('5'), m: modified(pod('a', '6')) }),
          m.cold('-'),
        ],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual([
        '0 relist-start',
        '0 connecting -',
        '0 connected',
        '0 ADDED a@3',
        '1 BOOKMARK 5 end',
        '1 relist-end 1',
        '3 MODIFIED a@6',
        '4 disconnected closed',
        '4 connecting 6',
      ]);
    }),
  );

  it(
    'initial-events, nothing delivered yet: the events themselves go out as they come, no end diff',
    marbles((m) => {
      const a3 = added(pod('a', '3'));
      const b4 = added(pod('b', '4'));
      const source = marbleWatchSource({
        connections: [
          m.cold('abAdMe-', {
            a: a3,
            b: b4,
            A: added(pod('a', '3')),
            d: deleted(pod('b', '4')),
            M: added(pod('a', '5')),
            e: end('6'),
          }),
        ],
      });
      const { timeline, events } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual([
        '0 relist-start',
        '0 connecting -',
        '0 connected',
        '0 ADDED a@3',
        '1 ADDED b@4',
        // a@3 again is a repeat: dropped; a@5 of a key delivered is a change.
        '3 DELETED b@4',
        '4 MODIFIED a@5',
        '5 BOOKMARK 6 end',
        '5 relist-end 1',
      ]);
      // Not copies: what the server sent, with no event made anew.
      expect(events[0]).toBe(a3);
      expect(events[1]).toBe(b4);
    }),
  );

  it(
    'initial-events --watchListRefused--> waiting 0 ms --> listing, and every later sync lists',
    marbles((m) => {
      const source = marbleWatchSource({
        connections: [httpError(m, 422), m.cold('-(x|)', { x: errorEvent(410) })],
        lists: [m.cold('(l|)', { l: listOf([], '3') }), m.cold('-(l|)', { l: listOf([], '4') })],
      });
      const { timeline } = run(m, source, { initialState: 'watch-list' });
      expect(timeline).toEqual([
        '0 relist-start',
        '0 connecting -',
        '0 disconnected error 422',
        '0 BOOKMARK 3 end',
        '0 relist-end 0',
        '0 connecting 3',
        '1 disconnected error 410',
        '1 expired',
        '1 backoff 400 #1 410',
        '401 relist-start',
        '402 BOOKMARK 4 end',
        '402 relist-end 0',
        '402 connecting 4',
      ]);
      expect(source.connections.map((c) => c.sendInitialEvents)).toEqual([
        true,
        undefined,
        undefined,
      ]);
    }),
  );
});

describe('resumeFromResourceVersion phases: watching', () => {
  it(
    'watching --closed--> waiting 0 ms --resume--> watching from the cursor',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [m.cold('m|', { m: modified(pod('a', '6')) }), m.cold('-')],
      });
      expect(run(m, source).timeline).toEqual([
        '0 connecting 5',
        '0 connected',
        '0 MODIFIED a@6',
        '1 disconnected closed',
        '1 connecting 6',
      ]);
    }),
  );

  it(
    'watching --closedTooSoon--> waiting (backoff): ended within 1 s without an event',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [m.cold('|'), m.cold('-')],
      });
      expect(run(m, source).timeline).toEqual([
        '0 connecting 5',
        '0 disconnected too-short 0',
        '0 backoff 400 #1 0',
        '400 connecting 5',
      ]);
    }),
  );

  it(
    'watching --failed (transient)--> waiting (backoff) --resume--> watching from the cursor',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [
          m.cold('m(x|)', { m: modified(pod('a', '6')), x: errorEvent(503) }),
          m.cold('-'),
        ],
      });
      expect(run(m, source).timeline).toEqual([
        '0 connecting 5',
        '0 connected',
        '0 MODIFIED a@6',
        '1 disconnected error 503',
        '1 backoff 400 #1 503',
        '401 connecting 6',
      ]);
    }),
  );

  it(
    'watching --failed (a first 401)--> waiting 0 ms --> watching; a second 401 --> stopped',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [httpError(m, 401), httpError(m, 401)],
      });
      const result = run(m, source);
      expect(result.timeline).toEqual([
        '0 connecting 5',
        '0 disconnected error 401',
        '0 backoff 0 #1 401',
        '0 connecting 5',
        '0 disconnected error 401',
      ]);
      expect(result.error).toMatchObject({ statusCode: 401 });
    }),
  );

  it(
    'watching --expired--> waiting 0 ms --resume--> listing (a difference follows)',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [m.cold('m(x|)', { m: modified(pod('a', '6')), x: errorEvent(410) })],
        lists: [m.cold('-')],
      });
      expect(run(m, source).timeline).toEqual([
        '0 connecting 5',
        '0 connected',
        '0 MODIFIED a@6',
        '1 disconnected error 410',
        '1 expired',
        '1 relist-start',
      ]);
    }),
  );
});

describe('resumeFromResourceVersion phases: --> stopped', () => {
  it(
    'any --failed (refused: 400, 403, 404, other 4xx)--> stopped: the stream errors',
    marbles((m) => {
      const source = marbleWatchSource({
        lists: [m.cold('#', undefined, watchError(403, 'pods is forbidden'))],
      });
      const result = run(m, source);
      expect(result.timeline).toEqual(['0 relist-start']);
      expect(result.error).toMatchObject({ errorType: 'FORBIDDEN' });
    }),
  );

  it(
    'any --failed past maxRetries--> stopped',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [httpError(m, 503), httpError(m, 503)],
      });
      const result = run(m, source, { maxRetries: 1 });
      expect(result.timeline).toEqual([
        '0 connecting 5',
        '0 disconnected error 503',
        '0 backoff 400 #1 503',
        '400 connecting 5',
        '400 disconnected error 503',
      ]);
      expect(result.error).toMatchObject({ statusCode: 503 });
    }),
  );

  it(
    'any --unsubscribe--> stopped: no request and no timer after it, even from inside onLifecycle',
    marbles((m) => {
      const source = marbleWatchSource({
        options: { resourceVersion: '5' },
        connections: [httpError(m, 503)],
      });
      const stop = new Subject<never>();
      merge(
        source.pipe(
          resumeFromResourceVersion({
            scheduler: m.scheduler,
            onLifecycle: (e) => e.type === 'backoff' && stop.error(new Error('stop')),
          }),
        ),
        stop,
      ).subscribe({ error: () => {} });
      m.flush();
      expect(source.connections).toHaveLength(1);
      expect(m.scheduler.actions).toHaveLength(0);
    }),
  );
});
