import { describe, it } from '@jest/globals';
import { marbles } from 'rxjs-marbles/jest';
import { whileLeader } from '../../src/controller/whileLeader.js';

const flags = { f: false, t: true };

describe('whileLeader', () => {
  it(
    'subscribes the source only while leading and unsubscribes it the moment leadership is lost',
    marbles((m) => {
      const election = m.hot('f--t-----f----t-----|', flags);
      const source = m.cold('-a-b-c-d-e-f-');
      m.expect(source.pipe(whileLeader(election))).toBeObservable('----a-b-c------a-b-c|');
      // Two leading spans: the source runs in each, afresh, and never between them.
      m.has(source, ['---^-----!-----------', '--------------^-----!']);
    }),
  );

  it(
    'ignores repeated values: a second true does not restart the source',
    marbles((m) => {
      const election = m.hot('t--t--t--f', flags);
      const source = m.cold('-a--b--c--d');
      m.expect(source.pipe(whileLeader(election))).toBeObservable('-a--b--c--');
      m.has(source, '^--------!');
    }),
  );

  it(
    'stops the source and completes when the election completes; its error is the output error',
    marbles((m) => {
      const ending = m.cold('t---|', flags);
      const source = m.cold('-a-b-c-d');
      m.expect(source.pipe(whileLeader(ending))).toBeObservable('-a-b|');
      m.has(source, '^---!');

      const failing = m.cold('t--#', flags, new Error('lost'));
      const other = m.cold('-a-b-c');
      m.expect(other.pipe(whileLeader(failing))).toBeObservable(
        '-a-#',
        undefined,
        new Error('lost'),
      );
    }),
  );

  it(
    'the source ending while leading does not end the output',
    marbles((m) => {
      const election = m.hot('t-----f--|', flags);
      const source = m.cold('-a|');
      m.expect(source.pipe(whileLeader(election))).toBeObservable('-a-------|');
    }),
  );
});
