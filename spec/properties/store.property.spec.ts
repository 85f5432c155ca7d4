/**
 * Properties of `toStore` and its indexes (issue 39): any sequence of watch events folds, after
 * every event, to what a plain Map does with them (ADDED/MODIFIED set, DELETED removes,
 * BOOKMARK and ERROR change no object), and every index lists exactly what a scan finds.
 */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import { toStore } from '../../src/operators/toStore.js';
import type { Store } from '../../src/operators/store/Store.js';
import type { WatchEvent } from '../../src/types.js';
import { checkProperty } from './settings.js';

interface Obj {
  metadata: { name: string; namespace: string; resourceVersion: string };
  spec: { groups: string[] };
}

const keyOf = (o: Obj) => `${o.metadata.namespace}/${o.metadata.name}`;
/** Files an object under each of its groups (none: not indexed). */
const byGroup = (o: Obj) => (o.spec.groups.length === 0 ? undefined : o.spec.groups);

const step = fc.record({
  type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'DELETED', 'BOOKMARK', 'ERROR'),
  name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
  namespace: fc.constantFrom('x', 'y'),
  groups: fc.uniqueArray(fc.constantFrom('g1', 'g2', 'g3', 'g4'), { maxLength: 3 }),
});

describe('toStore properties', () => {
  it('folds like a Map after every event, and its index agrees with a scan', async () => {
    await checkProperty(
      'store: every snapshot equals the Map model; byIndex equals a scan',
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const events = new Subject<WatchEvent<Obj>>();
        let latest: Store<Obj, 'byGroup'> | undefined;
        events
          .pipe(toStore<WatchEvent<Obj>, 'byGroup'>({ indexes: { byGroup } }))
          .subscribe((s) => (latest = s as Store<Obj, 'byGroup'>));
        const model = new Map<string, Obj>();
        let rv = 0;
        for (const s of steps) {
          const object: Obj = {
            metadata: { name: s.name, namespace: s.namespace, resourceVersion: String(++rv) },
            spec: { groups: s.groups },
          };
          if (s.type === 'ERROR') {
            events.next({ type: 'ERROR', error: new Error('x') } as never);
          } else {
            events.next({ type: s.type, object, resourceVersion: String(rv) } as WatchEvent<Obj>);
          }
          if (s.type === 'ADDED' || s.type === 'MODIFIED') model.set(keyOf(object), object);
          if (s.type === 'DELETED') model.delete(keyOf(object));
          if (latest === undefined) {
            if (model.size > 0) return false;
            continue;
          }
          const want = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          const got = latest.values();
          if (JSON.stringify(got) !== JSON.stringify(want.map(([, o]) => o))) return false;
          for (const [key, o] of want) if (latest.get(key) !== o) return false;
          for (const group of ['g1', 'g2', 'g3', 'g4']) {
            const scan = want.filter(([, o]) => o.spec.groups.includes(group)).map(([k]) => k);
            const indexed = latest.byIndex('byGroup', group).map(keyOf);
            if (JSON.stringify(indexed) !== JSON.stringify(scan)) return false;
          }
        }
        return true;
      }),
      300,
    );
  });
});
