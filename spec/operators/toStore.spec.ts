import { describe, expect, it } from '@jest/globals';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { map, type Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { toStore } from '../../src/operators/toStore.js';
import type { Store } from '../../src/operators/store/Store.js';
import {
  added,
  bookmark,
  deleted,
  errorEvent,
  modified,
  pod,
} from '../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';

/** What a reader can see of a store, as plain data a marble can compare. */
function view(store: Store<KubernetesObject>) {
  return {
    rv: store.resourceVersion,
    synced: store.synced,
    size: store.size,
    objects: store
      .values()
      .map(
        (o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}@${o.metadata?.resourceVersion}`,
      ),
  };
}

const viewed = (store$: Observable<Store<V1Pod>>) => store$.pipe(map(view));

const a5 = pod('a', '5');
const b6 = pod('b', '6');
const b9 = pod('b', '9');
/** The view of a store that holds only `a5`, after it. */
const onlyA5 = { rv: '5', synced: false, size: 1, objects: ['default/a@5'] };

describe('toStore', () => {
  it(
    'emits a snapshot after each change, and only then',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-a-b-e-B-x-m-d-|', {
        a: added(a5),
        b: added(b6),
        e: bookmark('7', { initialEventsEnd: true }),
        B: bookmark('7'), // same resourceVersion: nothing to see
        x: errorEvent(500), // ignored
        m: modified(b9),
        d: deleted(pod('a', '10')),
      });
      m.expect(viewed(source.pipe(toStore()))).toBeObservable('-1-2-3-----4-5-|', {
        1: onlyA5,
        2: { rv: '6', synced: false, size: 2, objects: ['default/a@5', 'default/b@6'] },
        3: { rv: '7', synced: true, size: 2, objects: ['default/a@5', 'default/b@6'] },
        4: { rv: '9', synced: true, size: 2, objects: ['default/a@5', 'default/b@9'] },
        5: { rv: '10', synced: true, size: 1, objects: ['default/b@9'] },
      });
    }),
  );

  it(
    'moves resourceVersion on bookmarks, and stays synced once synced',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-e-b-a-E-|', {
        e: bookmark('3', { initialEventsEnd: true }),
        b: bookmark('4'),
        a: added(a5),
        E: bookmark('5', { initialEventsEnd: true }), // after a relist: same state, no flip
      });
      m.expect(viewed(source.pipe(toStore()))).toBeObservable('-1-2-3---|', {
        1: { rv: '3', synced: true, size: 0, objects: [] },
        2: { rv: '4', synced: true, size: 0, objects: [] },
        3: { rv: '5', synced: true, size: 1, objects: ['default/a@5'] },
      });
    }),
  );

  it(
    'takes a DELETED of an unknown key as a resourceVersion move only',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-a-d-D-|', {
        a: added(a5),
        d: deleted(pod('ghost', '8')), // unknown, new version: a snapshot at 8
        D: deleted(pod('ghost', '8')), // unknown, same version: nothing
      });
      m.expect(viewed(source.pipe(toStore()))).toBeObservable('-1-2---|', {
        1: onlyA5,
        2: { rv: '8', synced: false, size: 1, objects: ['default/a@5'] },
      });
    }),
  );

  it(
    "uses the object's resourceVersion when the event has none, and keeps the last otherwise",
    marbles((m) => {
      const versionless = { ...pod('c', '1'), metadata: { name: 'c', namespace: 'default' } };
      const source = m.cold<WatchEvent<V1Pod>>('-a-b-c-|', {
        a: added(a5),
        b: { type: 'MODIFIED', object: b6 }, // no event resourceVersion: b6's own, 6
        c: { type: 'ADDED', object: versionless }, // none at all: still 6
      });
      m.expect(viewed(source.pipe(toStore()))).toBeObservable('-1-2-3-|', {
        1: onlyA5,
        2: { rv: '6', synced: false, size: 2, objects: ['default/a@5', 'default/b@6'] },
        3: {
          rv: '6',
          synced: false,
          size: 3,
          objects: ['default/a@5', 'default/b@6', 'default/c@undefined'],
        },
      });
    }),
  );

  it(
    'emits nothing for an event that repeats the same object at the same version',
    marbles((m) => {
      const event = added(a5);
      const source = m.cold<WatchEvent<V1Pod>>('-a-a-|', { a: event });
      m.expect(viewed(source.pipe(toStore()))).toBeObservable('-1---|', {
        1: onlyA5,
      });
    }),
  );

  it(
    'never changes a snapshot once emitted',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-a-b-e-m-d-|', {
        a: added(a5),
        b: added(b6),
        e: bookmark('7', { initialEventsEnd: true }),
        m: modified(pod('a', '8')),
        d: deleted(b9),
      });
      const snapshots: Store<V1Pod>[] = [];
      source.pipe(toStore()).subscribe((s) => snapshots.push(s));
      m.flush();
      const [first, second] = snapshots as [Store<V1Pod>, Store<V1Pod>];
      expect(snapshots).toHaveLength(5);
      expect(view(first)).toEqual(onlyA5);
      expect(first.get('default', 'a')).toBe(a5);
      expect(first.get('default/b')).toBeUndefined();
      expect(second.get('default/a')).toBe(a5);
      expect(second.get('default/b')).toBe(b6);
      expect(snapshots[4]!.get('default/a')?.metadata?.resourceVersion).toBe('8');
      expect(snapshots[4]!.get('default/b')).toBeUndefined();
      // Nobody can change one behind the others' backs: what it shows are getters over a
      // private state (immutable by construction, not frozen per event).
      expect(Object.keys(first)).toEqual([]);
      expect(() => {
        (first as { resourceVersion: string | undefined }).resourceVersion = '99';
      }).toThrow(TypeError);
      expect(() => {
        (first as { synced: boolean }).synced = true;
      }).toThrow(TypeError);
      expect(first.resourceVersion).toBe('5');
      const values = second.values();
      expect(Object.isFrozen(values)).toBe(true);
      expect(second.values()).toBe(values);
      expect(JSON.stringify(first)).toBe('{"resourceVersion":"5","synced":false}');
    }),
  );

  it(
    'finds objects by key, by namespace and name, and cluster-scoped ones by name',
    marbles((m) => {
      const node: V1Node = { kind: 'Node', metadata: { name: 'node-1', resourceVersion: '4' } };
      const prod = pod('a', '6', { metadata: { namespace: 'prod' } });
      const source = m.cold<WatchEvent<KubernetesObject>>('-n-a-p-|', {
        n: added(node),
        a: added(a5),
        p: added(prod),
      });
      let last: Store<KubernetesObject> | undefined;
      source.pipe(toStore()).subscribe((s) => (last = s));
      m.flush();
      expect(last!.get('node-1')).toBe(node);
      expect(last!.get(undefined, 'node-1')).toBe(node);
      expect(last!.get('', 'node-1')).toBe(node);
      expect(last!.get('default', 'a')).toBe(a5);
      expect(last!.get('prod/a')).toBe(prod);
      expect(last!.get('prod', 'b')).toBeUndefined();
      expect(last!.values()).toEqual([a5, node, prod]); // sorted by key
    }),
  );

  it(
    'stores an object without a name under the empty key, as the default key makes it',
    marbles((m) => {
      const nameless: KubernetesObject = { kind: 'Thing', metadata: { resourceVersion: '3' } };
      let last: Store<KubernetesObject> | undefined;
      m.cold<WatchEvent<KubernetesObject>>('-n-|', { n: added(nameless) })
        .pipe(toStore())
        .subscribe((s) => (last = s));
      m.flush();
      expect(last!.get('')).toBe(nameless);
      expect(last!.get(undefined, '')).toBe(nameless);
    }),
  );

  it(
    'keys objects with config.key',
    marbles((m) => {
      // Keyed by uid, a pod deleted and created again under the same name is two objects.
      const old = pod('a', '5', { metadata: { uid: 'u1' } });
      const fresh = pod('a', '6', { metadata: { uid: 'u2' } });
      const source = m.cold<WatchEvent<V1Pod>>('-o-f-|', { o: added(old), f: added(fresh) });
      let last: Store<V1Pod> | undefined;
      source.pipe(toStore({ key: (p) => p.metadata!.uid! })).subscribe((s) => (last = s));
      m.flush();
      expect(last!.size).toBe(2);
      expect(last!.get('u1')).toBe(old);
      expect(last!.get('u2')).toBe(fresh);
      expect(last!.get('default', 'a')).toBeUndefined(); // namespace/name is the default key only
    }),
  );

  it(
    'errors when the key function throws, and releases the upstream',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-a-b-|', { a: added(a5), b: added(b6) });
      const failure = new Error('no uid');
      const key = (p: V1Pod) => {
        if (p.metadata?.name === 'b') throw failure;
        return p.metadata!.name!;
      };
      m.expect<unknown>(source.pipe(toStore({ key }), map(view))).toBeObservable(
        '-1-#',
        { 1: onlyA5 },
        failure,
      );
      m.expect(source).toHaveSubscriptions('^--!');
    }),
  );

  it(
    'passes errors and completion through',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-a-#', { a: added(a5) }, 'boom');
      m.expect(viewed(source.pipe(toStore()))).toBeObservable('-1-#', { 1: onlyA5 }, 'boom');
      m.expect(m.cold<WatchEvent<V1Pod>>('--|').pipe(toStore())).toBeObservable('--|');
    }),
  );

  it(
    'stays a plain store when a later event carries a source',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-a-b-|', {
        a: added(a5),
        b: { ...added(b6), source: 'pods' } as unknown as WatchEvent<V1Pod>,
      });
      m.expect(viewed(source.pipe(toStore()))).toBeObservable('-1-2-|', {
        1: onlyA5,
        2: { rv: '6', synced: false, size: 2, objects: ['default/a@5', 'default/b@6'] },
      });
    }),
  );

  it('types the store after the events', () => {
    const pods$ = null as unknown as Observable<WatchEvent<V1Pod>>;
    const check = () => {
      const store$: Observable<Store<V1Pod>> = pods$.pipe(toStore());
      const anything$: Observable<Store<any>> = (pods$ as Observable<any>).pipe(toStore());
      // @ts-expect-error the key function gets a V1Pod
      pods$.pipe(toStore({ key: (p: { id: number }) => String(p.id) }));
      return [store$, anything$];
    };
    expect(check).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
