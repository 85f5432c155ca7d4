import { describe, expect, it } from '@jest/globals';
import { defaultKey } from '../../../src/objects/defaultKey.js';
import { endBookmark } from '../../../src/objects/endBookmark.js';
import { emptyWatchState, foldEvent, foldObjects } from '../../../src/operators/store/foldEvent.js';
import { SortedMap } from '../../../src/operators/store/SortedMap.js';
import {
  added,
  bookmark,
  deleted,
  errorEvent,
  modified,
  pod,
} from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../../src/types.js';

const empty = () => emptyWatchState(SortedMap.empty<KubernetesObject>());

describe('foldObjects', () => {
  it('sets ADDED and MODIFIED under their key, removes DELETED, ignores BOOKMARK and ERROR', () => {
    let objects = SortedMap.empty<KubernetesObject>();
    objects = foldObjects(objects, added(pod('b', '1')), defaultKey);
    objects = foldObjects(objects, added(pod('a', '2')), defaultKey);
    objects = foldObjects(objects, modified(pod('b', '3')), defaultKey);
    const before = objects;
    expect(foldObjects(objects, bookmark('4'), defaultKey)).toBe(before);
    expect(foldObjects(objects, errorEvent(500), defaultKey)).toBe(before);
    objects = foldObjects(objects, deleted(pod('a', '5')), defaultKey);
    expect(objects.values()).toEqual([pod('b', '3')]);
    // Persistent: the old version is still whole.
    expect(before.values()).toEqual([pod('a', '2'), pod('b', '3')]);
  });

  it('uses the key it is given: a re-created pod is another object under its uid', () => {
    const byUid = (o: KubernetesObject) => o.metadata!.uid!;
    let objects = SortedMap.empty<KubernetesObject>();
    objects = foldObjects(objects, added(pod('a', '1', { metadata: { uid: 'u1' } })), byUid);
    objects = foldObjects(objects, added(pod('a', '2', { metadata: { uid: 'u2' } })), byUid);
    expect([...objects.entries()].map(([key]) => key)).toEqual(['u1', 'u2']);
    objects = foldObjects(objects, deleted(pod('a', '3', { metadata: { uid: 'u1' } })), byUid);
    expect(objects.size).toBe(1);
    expect(objects.get('u2')?.metadata?.resourceVersion).toBe('2');
  });
});

describe('defaultKey', () => {
  it('is namespace/name (name alone when cluster-scoped) however its calls interleave', () => {
    // It gives back its last key for the same strings: the answer must still follow the values,
    // for another object, and for the same object after its metadata changed.
    const a = pod('a', '1');
    expect(defaultKey(a)).toBe('default/a');
    expect(defaultKey(a)).toBe('default/a');
    expect(defaultKey(pod('a', '1', { metadata: { namespace: 'prod' } }))).toBe('prod/a');
    expect(defaultKey(a)).toBe('default/a');
    a.metadata!.name = 'b';
    expect(defaultKey(a)).toBe('default/b');
    a.metadata!.namespace = undefined;
    expect(defaultKey(a)).toBe('b');
    expect(defaultKey({ metadata: { name: 'b', namespace: '' } })).toBe('b');
    expect(defaultKey({})).toBe('');
    expect(defaultKey(null)).toBe('');
  });
});

describe('foldEvent', () => {
  it('moves the resourceVersion with every event that has one and keeps the first end bookmark', () => {
    let state = foldEvent(empty(), added(pod('a', '1')), defaultKey);
    expect(state.resourceVersion).toBe('1');
    expect(state.initialEventsEnd).toBeUndefined();
    const end = endBookmark('2', 'v1');
    state = foldEvent(state, end, defaultKey);
    expect(state).toMatchObject({ resourceVersion: '2', initialEventsEnd: end.object });
    state = foldEvent(state, endBookmark('3', 'v1'), defaultKey);
    expect(state).toMatchObject({ resourceVersion: '3', initialEventsEnd: end.object });
    state = foldEvent(state, bookmark('4'), defaultKey);
    expect(state.resourceVersion).toBe('4');
    expect(state.objects.size).toBe(1);
  });

  it('returns the same state when nothing changed: an ERROR, a bookmark at the same version', () => {
    const state = foldEvent(empty(), bookmark('4'), defaultKey);
    expect(foldEvent(state, errorEvent(500), defaultKey)).toBe(state);
    expect(foldEvent(state, bookmark('4'), defaultKey)).toBe(state);
    expect(foldEvent(state, deleted(pod('x', '4')), defaultKey)).toBe(state);
  });
});
