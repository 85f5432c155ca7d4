import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { changedBy } from '../../src/operators/changedBy.js';
import { mergeWatches } from '../../src/operators/mergeWatches.js';
import {
  added,
  bookmark,
  deleted,
  errorEvent,
  modified,
  pod,
} from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';

const withSpec = (name: string, rv: string, spec: Record<string, unknown>) =>
  pod(name, rv, { spec: spec as unknown as V1Pod['spec'] });
const bySpec = (p: V1Pod) => p.spec;

describe('changedBy', () => {
  it(
    'drops a MODIFIED whose selected value is unchanged since the last event that passed',
    marbles((m) => {
      const values = {
        a: added(withSpec('x', '1', { nodeName: 'n1' })),
        m: modified(withSpec('x', '2', { nodeName: 'n1' })), // same spec: dropped
        n: modified(withSpec('x', '3', { nodeName: 'n2' })),
        o: modified(withSpec('x', '4', { nodeName: 'n2' })), // compared with n, not a
        p: modified(withSpec('x', '5', { nodeName: 'n1' })), // back to a's value: a change
        b: bookmark<V1Pod>('6'),
        x: errorEvent<V1Pod>(500),
      };
      const source = m.cold<WatchEvent<V1Pod>>('-a-m-n-o-p-b-x-|', values);
      m.expect(source.pipe(changedBy(bySpec))).toBeObservable('-a---n---p-b-x-|', values);
    }),
  );

  it(
    'compares structurally: the order of object keys does not matter, types do',
    marbles((m) => {
      const values = {
        a: added(withSpec('x', '1', { a: 1, b: { c: [1, 2], d: null } })),
        m: modified(withSpec('x', '2', { b: { d: null, c: [1, 2] }, a: 1 })), // equal JSON
        n: modified(withSpec('x', '3', { b: { d: null, c: [2, 1] }, a: 1 })), // order of an array
        o: modified(withSpec('x', '4', { b: { d: null, c: [2, 1] }, a: '1' })), // 1 vs '1'
      };
      const source = m.cold<WatchEvent<V1Pod>>('-a-m-n-o-|', values);
      m.expect(source.pipe(changedBy(bySpec))).toBeObservable('-a---n-o-|', values);
    }),
  );

  it(
    'passes a MODIFIED for a key not seen before, and keeps each key apart',
    marbles((m) => {
      const values = {
        m: modified(withSpec('x', '1', { v: 1 })), // unseen: passes
        n: modified(withSpec('y', '2', { v: 1 })), // another key, same value: passes
        o: modified(withSpec('x', '3', { v: 1 })),
        p: modified(withSpec('y', '4', { v: 1 })),
      };
      const source = m.cold<WatchEvent<V1Pod>>('-m-n-o-p-|', values);
      m.expect(source.pipe(changedBy(bySpec))).toBeObservable('-m-n-----|', values);
    }),
  );

  it(
    'forgets a key on DELETED: the object re-created passes again',
    marbles((m) => {
      const values = {
        a: added(withSpec('x', '1', { v: 1 })),
        d: deleted(withSpec('x', '2', { v: 1 })),
        m: modified(withSpec('x', '3', { v: 1 })), // a key unseen since the deletion
        A: added(withSpec('x', '4', { v: 1 })), // ADDED always passes
        n: modified(withSpec('x', '5', { v: 1 })),
      };
      const source = m.cold<WatchEvent<V1Pod>>('-a-d-m-A-n-|', values);
      m.expect(source.pipe(changedBy(bySpec))).toBeObservable('-a-d-m-A---|', values);
    }),
  );

  it(
    'takes an undefined selection as a value distinct from null',
    marbles((m) => {
      const values = {
        a: added(withSpec('x', '1', {})),
        m: modified(withSpec('x', '2', {})), // undefined again: dropped
        n: modified(withSpec('x', '3', { v: null })), // null: a change
        o: modified(withSpec('x', '4', { v: null })),
      };
      const source = m.cold<WatchEvent<V1Pod>>('-a-m-n-o-|', values);
      const select = (p: V1Pod) => (p.spec as unknown as { v?: null }).v;
      m.expect(source.pipe(changedBy(select))).toBeObservable('-a---n---|', values);
    }),
  );

  it(
    'uses the key of the config',
    marbles((m) => {
      const values = {
        a: added(pod('x', '1', { metadata: { uid: 'u1' } })),
        // Same name, new uid: another object under a uid key, so it passes.
        m: modified(pod('x', '2', { metadata: { uid: 'u2' } })),
        n: modified(pod('x', '3', { metadata: { uid: 'u2' } })),
      };
      const source = m.cold<WatchEvent<V1Pod>>('-a-m-n-|', values);
      const byUid = changedBy((p: V1Pod) => p.spec, { key: (p) => p.metadata!.uid! });
      m.expect(source.pipe(byUid)).toBeObservable('-a-m---|', values);
    }),
  );

  it(
    'keeps the keys of each source of a merged stream apart',
    marbles((m) => {
      const p = {
        a: added(withSpec('x', '1', { v: 1 })),
        m: modified(withSpec('x', '3', { v: 1 })),
      };
      const q = {
        a: added(withSpec('x', '2', { v: 1 })),
        m: modified(withSpec('x', '4', { v: 2 })),
      };
      const merged = mergeWatches({
        one: m.cold<WatchEvent<V1Pod>>('-a---m-|', p),
        two: m.cold<WatchEvent<V1Pod>>('---a---m|', q),
      });
      m.expect(merged.pipe(changedBy(bySpec))).toBeObservable('-a-b---c|', {
        a: { ...p.a, source: 'one' },
        b: { ...q.a, source: 'two' },
        c: { ...q.m, source: 'two' },
      });
    }),
  );

  it(
    'errors when select throws, and relays errors and completion',
    marbles((m) => {
      const boom = new Error('boom');
      const source = m.cold<WatchEvent<V1Pod>>('-a-m-', {
        a: added(withSpec('x', '1', { v: 1 })),
        m: modified(withSpec('x', '2', { v: 2 })),
      });
      const select = (p: V1Pod) => {
        if (p.metadata?.resourceVersion === '2') throw boom;
        return p.spec;
      };
      m.expect(source.pipe(changedBy(select))).toBeObservable(
        '-a-#',
        { a: added(withSpec('x', '1', { v: 1 })) },
        boom,
      );
      const failing = m.cold<WatchEvent<V1Pod>>('-#', undefined, boom);
      m.expect(failing.pipe(changedBy(bySpec))).toBeObservable('-#', undefined, boom);
    }),
  );

  it('types select with the object of the stream', () => {
    const deployments$ = null as unknown as Observable<WatchEvent<V1Deployment>>;
    const check = () =>
      deployments$.pipe(
        changedBy((d) => d.spec?.replicas),
        // @ts-expect-error a V1Deployment has no `nodeName`
        changedBy((d) => d.nodeName),
      );
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
