import type { KubernetesObject, ResourceRef } from '../../types.js';
import type { Entry, ObjectStore, ResourceStore, StoredEvent } from './ObjectStore.js';

/**
 * One view of objects stored once: the resource it is served as, and how its objects convert
 * from and to the shape they are stored in (a CRD's versions, the two APIs of Events).
 */
export interface StoreView {
  readonly ref: ResourceRef<unknown>;
  fromStored(obj: KubernetesObject): KubernetesObject;
  toStored(obj: KubernetesObject): KubernetesObject;
}

function entryOf(obj: KubernetesObject, rv: number): Entry {
  return { obj, json: JSON.stringify(obj), rv };
}

/**
 * Serves the same objects through several resources, as kube-apiserver serves one etcd key
 * through every version of a CRD or both Event APIs: a change written through one view is
 * recorded at the same resourceVersion in the others (converted), so each lists and watches
 * it. The first view's objects seed the others. Returns what undoes the link.
 */
export function linkViews(objects: ObjectStore, views: StoreView[]): () => void {
  const stores = views.map((v) => objects.resource(v.ref));
  let mirroring = false;
  const mirror = (from: number, event: StoredEvent): void => {
    // A mirrored record tells the other views' listeners too: only the original write spreads.
    if (mirroring) return;
    mirroring = true;
    try {
      const stored = views[from].toStored(event.entry.obj);
      stores.forEach((store, i) => {
        if (i !== from) record(store, views[i], event, stored);
      });
    } finally {
      mirroring = false;
    }
  };
  const [first, ...rest] = stores;
  const seed = [...first.objects.entries()].sort(([, a], [, b]) => a.rv - b.rv);
  for (const [key, entry] of seed) {
    const stored = views[0].toStored(entry.obj);
    rest.forEach((store, i) => {
      if (!store.objects.has(key)) {
        const obj = views[i + 1].fromStored(stored);
        store.record({ type: 'ADDED', rv: entry.rv, key, entry: entryOf(obj, entry.rv) });
      }
    });
  }
  const listeners = stores.map((store, i) => {
    const listener = (event: StoredEvent): void => mirror(i, event);
    store.listeners.add(listener);
    return listener;
  });
  return () => stores.forEach((store, i) => store.listeners.delete(listeners[i]));
}

function record(
  store: ResourceStore,
  view: StoreView,
  event: StoredEvent,
  stored: KubernetesObject,
): void {
  const prev = store.objects.get(event.key);
  if (event.type === 'DELETED' && prev === undefined) return;
  const entry = entryOf(view.fromStored(structuredClone(stored)), event.rv);
  const type = event.type === 'MODIFIED' && prev === undefined ? 'ADDED' : event.type;
  store.record({ type, rv: event.rv, key: event.key, entry, prev });
}
