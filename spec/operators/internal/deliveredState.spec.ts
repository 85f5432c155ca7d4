import { describe, expect, it } from '@jest/globals';
import { DeliveredState, keyOf } from '../../../src/operators/internal/deliveredState.js';
import { endBookmark } from '../../../src/operators/internal/events.js';
import { isInitialEventsEnd } from '../../../src/operators/isInitialEventsEnd.js';
import { added, bookmark, deleted, modified, pod } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchObjectEvent } from '../../../src/types.js';

const node = (name: string, rv?: string): KubernetesObject => ({
  kind: 'Node',
  metadata: { name, resourceVersion: rv },
});
const event = (type: 'ADDED' | 'MODIFIED', object: KubernetesObject): WatchObjectEvent => ({
  type,
  object,
});

describe('keyOf / endBookmark', () => {
  it('keys namespaced objects by namespace/name and cluster-scoped ones by name', () => {
    expect(keyOf(pod('a', '1'))).toBe('default/a');
    expect(keyOf(node('n1'))).toBe('n1');
    expect(keyOf({ metadata: {} })).toBeUndefined();
    expect(keyOf(undefined)).toBeUndefined();
  });

  it('builds an end BOOKMARK the way the API server sends it', () => {
    expect(endBookmark('3', 'apps/v1')).toEqual({
      type: 'BOOKMARK',
      resourceVersion: '3',
      object: {
        apiVersion: 'apps/v1',
        metadata: { resourceVersion: '3', annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
    expect(isInitialEventsEnd(endBookmark('3', 'v1'))).toBe(true);
  });
});

describe('DeliveredState', () => {
  it('drops an exact repeat, forgets a deleted key, passes bookmarks and nameless objects', () => {
    const state = new DeliveredState<KubernetesObject>();
    const a = added(pod('a', '1')) as WatchObjectEvent;
    expect(state.apply(a)).toBe(a);
    expect(state.apply(modified(pod('a', '1')) as WatchObjectEvent)).toBeUndefined();
    const gone = deleted(pod('a', '2')) as WatchObjectEvent;
    expect(state.apply(gone)).toBe(gone);
    expect(state.size).toBe(0);
    expect(state.apply(a)).toBe(a);
    const b = bookmark('9') as WatchObjectEvent;
    expect(state.apply(b)).toBe(b);
    const named = { type: 'BOOKMARK', object: node('n9', '9'), resourceVersion: '9' } as const;
    expect(state.apply(named)).toBe(named);
    expect(state.size).toBe(1);
    const nameless = event('ADDED', { metadata: { resourceVersion: '3' } });
    expect(state.apply(nameless)).toBe(nameless);
    expect(state.apply(nameless)).toBe(nameless);
    expect(state.size).toBe(1);
  });

  it('never takes two events without a version for a repeat', () => {
    const state = new DeliveredState<KubernetesObject>();
    const first = event('ADDED', node('n1'));
    const second = event('MODIFIED', node('n1'));
    expect(state.apply(first)).toBe(first);
    expect(state.apply(second)).toBe(second);
  });

  it('diffs a fresh state: ADDED, MODIFIED, nothing for unchanged, DELETED with the last object', () => {
    const state = new DeliveredState<KubernetesObject>();
    const c = pod('c', '3');
    for (const o of [pod('a', '1'), pod('b', '2'), c, node('n1')]) state.apply(event('ADDED', o));
    const resync = state.resync();
    expect(resync.offer(pod('a', '1'))).toBeUndefined();
    expect(resync.offer(pod('b', '5'))).toEqual(modified(pod('b', '5')));
    expect(resync.offer(pod('d', '6'))).toEqual(added(pod('d', '6')));
    expect(resync.offer(node('n1'))).toMatchObject({ type: 'MODIFIED' });
    expect(resync.offer({ metadata: { resourceVersion: '7' } })).toMatchObject({ type: 'ADDED' });
    expect(resync.finish()).toEqual([{ type: 'DELETED', object: c, resourceVersion: '3' }]);
    expect(resync.count).toBe(5);
    expect(state.size).toBe(4);
    expect(state.resync().finish()).toHaveLength(4);
  });
});
