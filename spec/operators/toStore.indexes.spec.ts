import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { Subject, map, type Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import type { SortedMap } from '../../src/operators/store/SortedMap.js';
import { StoreSnapshot } from '../../src/operators/store/StoreSnapshot.js';
import { mergeWatches } from '../../src/operators/mergeWatches.js';
import { ownerIndex } from '../../src/operators/ownerIndex.js';
import { toStore, type MergedStore, type Store } from '../../src/operators/toStore.js';
import { added, bookmark, deleted, modified, pod } from '../../src/testing/marbles/builders.js';
import type { WatchEvent } from '../../src/types.js';
import { mulberry32 } from '../support/seededRandom.js';

const onNode = (name: string, rv: string, nodeName?: string) =>
  pod(name, rv, { spec: { containers: [], nodeName } });
const byNode = (p: V1Pod) => p.spec?.nodeName;
const names = (objects: readonly V1Pod[]) => objects.map((o) => o.metadata?.name).join(',');

describe('toStore indexes', () => {
  it(
    'files objects by the value of an indexer, sorted by key, and moves them on change',
    marbles((m) => {
      const source = m.cold<WatchEvent<V1Pod>>('-a-b-c-u-m-d-|', {
        a: added(onNode('c', '1', 'n1')),
        b: added(onNode('a', '2', 'n1')),
        c: added(onNode('b', '3', 'n2')),
        u: added(onNode('u', '4')), // not scheduled: filed nowhere
        m: modified(onNode('a', '5', 'n2')), // moves from n1 to n2
        d: deleted(onNode('b', '6', 'n9')), // removed from where it is stored (n2), not n9
      });
      const view = (store: Store<V1Pod, 'byNode'>) =>
        `n1[${names(store.byIndex('byNode', 'n1'))}] n2[${names(store.byIndex('byNode', 'n2'))}]`;
      const stores = source.pipe(toStore({ indexes: { byNode } }));
      m.expect(stores.pipe(map(view))).toBeObservable('-1-2-3-4-5-6-|', {
        1: 'n1[c] n2[]',
        2: 'n1[a,c] n2[]',
        3: 'n1[a,c] n2[b]',
        4: 'n1[a,c] n2[b]',
        5: 'n1[c] n2[a,b]',
        6: 'n1[c] n2[a]',
      });
    }),
  );

  it('never changes the index of a snapshot already emitted', () => {
    const events = new Subject<WatchEvent<V1Pod>>();
    const stores: Store<V1Pod, 'byNode'>[] = [];
    events.pipe(toStore({ indexes: { byNode } })).subscribe((s) => stores.push(s));
    events.next(added(onNode('a', '1', 'n1')));
    events.next(added(onNode('b', '2', 'n1')));
    events.next(modified(onNode('a', '3', 'n2')));
    events.next(deleted(onNode('b', '4', 'n1')));
    const seen = stores.map(
      (s) => `${names(s.byIndex('byNode', 'n1'))}|${names(s.byIndex('byNode', 'n2'))}`,
    );
    expect(seen).toEqual(['a|', 'a,b|', 'b|a', '|a']);
    expect(stores[1]!.byIndex('byNode', 'n1')[0]!.metadata?.resourceVersion).toBe('1');
    expect(Object.isFrozen(stores[0]!.byIndex('byNode', 'n1'))).toBe(true);
  });

  it('files an object under each value of an array once, and keeps values apart exactly', () => {
    const events = new Subject<WatchEvent<V1Pod>>();
    let store: Store<V1Pod, 'byLabel'> | undefined;
    const byLabel = (p: V1Pod) => Object.values(p.metadata?.labels ?? {});
    events.pipe(toStore({ indexes: { byLabel } })).subscribe((s) => (store = s));
    const labelled = (name: string, rv: string, labels: Record<string, string>) =>
      pod(name, rv, { metadata: { labels } });
    events.next(added(labelled('a', '1', { x: 'web', y: 'web', z: 'db' })));
    events.next(added(labelled('b', '2', { x: 'we' })));
    events.next(added(labelled('c', '3', { x: 'web\u0000b', y: 'web\u0000' })));
    events.next(added(labelled('d', '4', { x: '' })));
    expect(names(store!.byIndex('byLabel', 'web'))).toBe('a');
    expect(names(store!.byIndex('byLabel', 'db'))).toBe('a');
    expect(names(store!.byIndex('byLabel', 'we'))).toBe('b');
    expect(names(store!.byIndex('byLabel', 'web\u0000'))).toBe('c');
    expect(names(store!.byIndex('byLabel', 'web\u0000b'))).toBe('c');
    expect(names(store!.byIndex('byLabel', ''))).toBe('d');
    expect(names(store!.byIndex('byLabel', 'nothing'))).toBe('');
    events.next(modified(labelled('a', '5', { x: 'db' })));
    expect(names(store!.byIndex('byLabel', 'web'))).toBe('');
    expect(names(store!.byIndex('byLabel', 'db'))).toBe('a');
  });

  it('throws for an undeclared index, and errors the stream when an indexer returns no string', () => {
    const events = new Subject<WatchEvent<V1Pod>>();
    let store: Store<V1Pod> | undefined;
    let error: unknown;
    const bad = (p: V1Pod) => (p.metadata?.name === 'bad' ? (7 as unknown as string) : 'ok');
    events.pipe(toStore({ indexes: { bad } })).subscribe({
      next: (s) => (store = s),
      error: (e: unknown) => (error = e),
    });
    events.next(added(pod('a', '1')));
    expect(() => store!.byIndex('nope', 'x')).toThrow(/no index named "nope"/);
    events.next(added(pod('bad', '2')));
    expect(error).toBeInstanceOf(TypeError);
  });

  it('ownerIndex files an object under the uid of each owner reference', () => {
    const events = new Subject<WatchEvent<V1Pod>>();
    let store: Store<V1Pod, 'byOwner'> | undefined;
    events.pipe(toStore({ indexes: { byOwner: ownerIndex } })).subscribe((s) => (store = s));
    const owned = (name: string, uids: string[]) =>
      pod(name, '1', {
        metadata: {
          ownerReferences: uids.map((uid) => ({
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: uid,
            uid,
          })),
        },
      });
    events.next(added(owned('p1', ['rs-1'])));
    events.next(added(owned('p2', ['rs-1', 'job-7'])));
    events.next(added(owned('p3', [])));
    events.next(added(pod('p4', '1')));
    expect(names(store!.byIndex('byOwner', 'rs-1'))).toBe('p1,p2');
    expect(names(store!.byIndex('byOwner', 'job-7'))).toBe('p2');
    expect(ownerIndex(pod('p4', '1'))).toBeUndefined();
  });

  it(
    'indexes every source of a merged store, a source with no events too',
    marbles((m) => {
      type Objects = { pods: V1Pod; deployments: V1Deployment };
      const merged = mergeWatches({
        pods: m.cold<WatchEvent<V1Pod>>('-a-b-|', {
          a: added(onNode('a', '1', 'n1')),
          b: added(onNode('b', '2', 'n1')),
        }),
        deployments: m.cold<WatchEvent<V1Deployment>>('--e--|', {
          e: bookmark('3', { initialEventsEnd: true }),
        }),
      });
      const view = (s: MergedStore<Objects, 'byNode'>) =>
        `${names(s.store('pods').byIndex('byNode', 'n1'))}/${s.store('deployments').byIndex('byNode', 'n1').length}`;
      const stores = merged.pipe(
        toStore({
          sources: ['pods', 'deployments'],
          indexes: { byNode: (o) => (o as V1Pod).spec?.nodeName },
        }),
      );
      m.expect(stores.pipe(map(view))).toBeObservable('-123-|', {
        1: 'a/0',
        2: 'a/0',
        3: 'a,b/0',
      });
    }),
  );

  it('costs O(log n) per update at 100 000 objects: no copy of an index, only paths', () => {
    type Node = { children?: readonly Node[] };
    const nodesOf = (sorted: SortedMap<unknown>): Set<Node> => {
      const out = new Set<Node>();
      const visit = (node: Node) => {
        out.add(node);
        node.children?.forEach(visit);
      };
      visit((sorted as unknown as { root: Node }).root);
      return out;
    };
    const indexOf = (store: Store<V1Pod, 'byNode'>, i = 0) =>
      StoreSnapshot.internals(store as unknown as StoreSnapshot<V1Pod>).indexes.maps[i]!;
    const events = new Subject<WatchEvent<V1Pod>>();
    let store: Store<V1Pod, 'byNode'> | undefined;
    events.pipe(toStore({ indexes: { byNode } })).subscribe((s) => (store = s));
    const name = (i: number) => `pod-${String(i).padStart(6, '0')}`;
    // 100 000 pods on 100 nodes: 1 000 per node.
    for (let i = 0; i < 100_000; i++)
      events.next(added(onNode(name(i), String(i + 1), `node-${i % 100}`)));
    const before = store!;
    const beforeNodes = nodesOf(indexOf(before));
    let depth = 1;
    for (
      let n = (indexOf(before) as unknown as { root: Node }).root;
      n.children;
      n = n.children[0]!
    )
      depth++;
    expect(depth).toBeGreaterThanOrEqual(4);
    const created = () => [...nodesOf(indexOf(store!))].filter((n) => !beforeNodes.has(n)).length;

    // Same node, new object: one entry replaced, one path copied.
    events.next(modified(onNode(name(500), '200001', 'node-0')));
    expect(created()).toBeLessThanOrEqual(depth);
    // Moved to another node: one entry removed, one added (a split or a join adds at most one
    // node per level, and a root).
    events.next(modified(onNode(name(500), '200002', 'node-7')));
    expect(created()).toBeLessThanOrEqual(2 * (2 * depth + 1));
    events.next(deleted(onNode(name(501), '200003')));
    // The snapshot from before still answers as it did.
    expect(before.byIndex('byNode', 'node-0')).toHaveLength(1000);
    expect(store!.byIndex('byNode', 'node-0')).toHaveLength(999);
    expect(store!.byIndex('byNode', 'node-7')).toHaveLength(1001);
    expect(store!.byIndex('byNode', 'node-1')).toHaveLength(999);
  });

  it.each([1, 2])('answers as a scan of the store would under random changes (seed %i)', (seed) => {
    const random = mulberry32(seed);
    const events = new Subject<WatchEvent<V1Pod>>();
    let store: Store<V1Pod, 'byNode'> | undefined;
    events.pipe(toStore({ indexes: { byNode } })).subscribe((s) => (store = s));
    for (let i = 0; i < 3000; i++) {
      const p = onNode(
        `p${Math.floor(random() * 500)}`,
        String(i),
        random() < 0.1 ? undefined : `n${Math.floor(random() * 8)}`,
      );
      events.next(random() < 0.25 ? deleted(p) : random() < 0.5 ? added(p) : modified(p));
      if (i % 300 === 0 || i === 2999) {
        for (let n = 0; n < 8; n++) {
          const scan = store!.values().filter((o) => o.spec?.nodeName === `n${n}`);
          expect(store!.byIndex('byNode', `n${n}`)).toEqual(scan);
        }
      }
    }
  });

  it('types index names and indexer arguments', () => {
    const pods$ = null as unknown as Observable<WatchEvent<V1Pod>>;
    const check = () =>
      pods$.pipe(toStore({ indexes: { byNode: (p) => p.spec?.nodeName } })).subscribe((s) => {
        s.byIndex('byNode', 'n1');
        // @ts-expect-error no index of that name
        s.byIndex('byOwner', 'x');
      });
    // @ts-expect-error an indexer returns strings
    const wrong = () => pods$.pipe(toStore({ indexes: { n: (p) => p.spec?.priority } }));
    expect([check, wrong]).toBeDefined(); // the assertions are the types: `npm run typecheck` fails without them
  });
});
