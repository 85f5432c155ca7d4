// The read-your-own-writes bookkeeping in virtual time: what a written object waits for, what
// counts as seen, and the timeout that lets the key run told its reads may be stale.
import { describe, expect, it } from '@jest/globals';
import { marbles, type Context } from 'rxjs-marbles/jest';
import { Expectations } from '../../../src/controller/expectations/Expectations.js';
import type { Written } from '../../../src/controller/expectations/Written.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../../src/types.js';

/** Expectations over stores the test fills (store number -> key -> object); `log` of opens. */
function harness(m: Context, timeoutMs = 100) {
  const stores: Array<Map<string, KubernetesObject>> = [new Map(), new Map()];
  const log: string[] = [];
  const expectations = new Expectations(timeoutMs, m.scheduler, (store, key) =>
    stores[store]!.get(key),
  );
  expectations.listen((key) => log.push(`${m.scheduler.now()} ${key}`));
  /** Store `store` applies an event of `object` (as the controller does: fold, then observe). */
  const apply = (store: number, object: KubernetesObject, deleted = false) => {
    const key = `default/${object.metadata!.name}`;
    if (deleted) stores[store]!.delete(key);
    else stores[store]!.set(key, object);
    if (expectations.waiting) expectations.observe(store, key, object, deleted);
  };
  return { expectations, stores, log, apply };
}

const written = (name: string, resourceVersion: string, uid = `uid-${name}`): Written => ({
  kind: 'written',
  objectKey: `default/${name}`,
  resourceVersion,
  uid,
});

describe('Expectations', () => {
  it(
    'holds a key until its store shows the object at the version the write returned',
    marbles((m) => {
      const { expectations, log, apply } = harness(m);
      m.scheduler.schedule(() => expectations.expect('default/web', [1], written('c', '5')), 10);
      m.scheduler.schedule(() => apply(1, pod('c', '5')), 30);
      m.flush();
      expect(log).toEqual(['30 default/web']);
      expect(expectations.blocked('default/web')).toBe(false);
      expect(expectations.takeStale('default/web')).toBe(false);
      expect(expectations.waiting).toBe(false);
    }),
  );

  it(
    'costs nothing when the store already shows the write: no hold, no timer',
    marbles((m) => {
      const { expectations, stores, log } = harness(m);
      stores[1]!.set('default/c', pod('c', '5'));
      expectations.expect('default/web', [1], written('c', '5'));
      expect(expectations.blocked('default/web')).toBe(false);
      m.flush();
      expect(log).toEqual([]);
    }),
  );

  it(
    'waits for every store and every object written, each seen once',
    marbles((m) => {
      const { expectations, log, apply } = harness(m);
      expectations.expect('default/web', [0, 1], written('c', '5'));
      expectations.expect('default/web', [1], written('d', '6'));
      m.scheduler.schedule(() => apply(1, pod('c', '5')), 10);
      m.scheduler.schedule(() => apply(1, pod('d', '6')), 20);
      m.scheduler.schedule(() => expect(expectations.blocked('default/web')).toBe(true), 25);
      m.scheduler.schedule(() => apply(0, pod('c', '5')), 30);
      m.flush();
      expect(log).toEqual(['30 default/web']);
    }),
  );

  it(
    'takes any later event of the object as seen, but not the DELETED of an older incarnation',
    marbles((m) => {
      const { expectations, log, apply } = harness(m);
      // Re-created under the same name: the old one's deletion arrives after the create returned.
      expectations.expect('default/web', [1], written('c', '9', 'uid-new'));
      m.scheduler.schedule(
        () => apply(1, pod('c', '4', { metadata: { uid: 'uid-old' } }), true),
        10,
      );
      // A later version than the write's (opaque versions: any event after the write counts).
      m.scheduler.schedule(() => apply(1, pod('c', '11', { metadata: { uid: 'uid-new' } })), 20);
      m.flush();
      expect(log).toEqual(['20 default/web']);
    }),
  );

  it(
    'a delete answered with a Status waits for the object gone; answered with the object, for that version or gone',
    marbles((m) => {
      const { expectations, stores, log, apply } = harness(m);
      stores[1]!.set('default/a', pod('a', '3'));
      stores[1]!.set('default/b', pod('b', '3'));
      expectations.expect('k1', [1], { kind: 'deleted', objectKey: 'default/a', uid: 'uid-a' });
      const marked = pod('b', '7', { metadata: { deletionTimestamp: new Date(0) } });
      expectations.expect('k2', [1], {
        kind: 'deleting',
        objectKey: 'default/b',
        resourceVersion: '7',
      });
      // A change of a still there (its finalizer's last update): not its deletion.
      m.scheduler.schedule(() => apply(1, pod('a', '5')), 10);
      m.scheduler.schedule(() => apply(1, pod('a', '6'), true), 20);
      m.scheduler.schedule(() => apply(1, marked), 30);
      m.flush();
      expect(log).toEqual(['20 k1', '30 k2']);
      // Gone already when the delete returns: nothing to wait for.
      expectations.expect('k3', [1], { kind: 'deleted', objectKey: 'default/a' });
      expect(expectations.blocked('k3')).toBe(false);
    }),
  );

  it(
    'opens the key after timeoutMs from its latest write, and its next run is told (once) it may read stale stores',
    marbles((m) => {
      const { expectations, log } = harness(m, 100);
      expectations.expect('default/web', [1], written('c', '5'));
      m.scheduler.schedule(() => expectations.expect('default/web', [1], written('d', '6')), 40);
      m.flush();
      expect(log).toEqual(['140 default/web']);
      expect(expectations.blocked('default/web')).toBe(false);
      expect(expectations.waiting).toBe(false);
      expect(expectations.takeStale('default/web')).toBe(true);
      expect(expectations.takeStale('default/web')).toBe(false);
    }),
  );

  it(
    'keeps keys apart, and close() disarms every timer',
    marbles((m) => {
      const { expectations, log, apply } = harness(m, 100);
      expectations.expect('a', [1], written('c', '5'));
      expectations.expect('b', [1], written('d', '6'));
      m.scheduler.schedule(() => apply(1, pod('c', '5')), 10);
      m.scheduler.schedule(() => expectations.close(), 50);
      m.flush();
      expect(log).toEqual(['10 a']);
      expect(expectations.blocked('b')).toBe(false);
      // Closed: a later write is not remembered.
      expectations.expect('b', [1], written('e', '7'));
      expect(expectations.blocked('b')).toBe(false);
    }),
  );
});
