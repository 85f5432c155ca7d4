import { versionOf } from '../../../objects/versionOf.js';
import type { KubernetesObject, ResourceRef } from '../../../types.js';
import { cloneObject } from '../cloneObject.js';
import { jsonEqual } from '../jsonEqual.js';
import type { ObjectStore, StoredEvent } from '../ObjectStore.js';
import type { ResourceTypes } from '../ResourceTypes.js';
import { deleteObject, writeUpdateEntry } from './deleteObject.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './finalizers.js';
import type { PropagationPolicy } from './options.js';
import { deletingWith, entryAt, ownerRefs, placeId, resolveOwner } from './ownerGraph.js';
import type { Place } from './ownerGraph.js';

/** How many uids of deleted objects are remembered (references to them are collected). */
const REMEMBERED_UIDS = 100_000;

/** One piece of work: a dependent to check, or an owner whose GC finalizer may be done. */
type Work = { op: 'dependent' | 'owner'; place: Place };

/**
 * The garbage collector, following the store's changes like kube-controller-manager's:
 * dependents whose owners are all gone (by uid) are deleted, owners deleted with `Orphan` have
 * their dependents' references removed, owners deleted with `Foreground` wait for their blocking
 * dependents. It runs on a microtask after the change that calls for it (never inside the
 * request), so a DELETE answers first; {@link settled} waits until it has nothing left to do.
 *
 * It acts on references to uids this server has held: a dependent whose owner was never created
 * here (a fixture pointing at an imaginary ReplicaSet) is left alone, where kube-apiserver's GC
 * would delete it.
 */
export class GarbageCollector {
  /** Owner uid → ids of the objects that reference it. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Where each indexed dependent lives. */
  private readonly places = new Map<string, Place>();
  /** Every uid the store has held (live or deleted, the most recent ones). */
  private readonly seen = new Set<string>();
  private readonly queue = new Map<string, Work>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly objects: ObjectStore,
    private readonly types: ResourceTypes,
  ) {
    objects.observers.add((id, event) => this.observe(id, event));
  }

  /** Resolves once every deletion the last changes called for is done. */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private observe(id: ResourceRef<unknown>, event: StoredEvent): void {
    const ref = { group: id.group, version: versionOf(id), plural: id.plural };
    const obj = event.entry.obj;
    const place: Place = { ref, namespace: obj.metadata?.namespace, name: obj.metadata!.name! };
    const uid = obj.metadata?.uid;
    if (uid !== undefined) this.remember(uid);
    const before = event.type === 'ADDED' ? [] : ownerRefs(event.prev?.obj);
    const after = event.type === 'DELETED' ? [] : ownerRefs(obj);
    this.index(place, before, after);
    if (event.type === 'DELETED') {
      for (const dep of this.dependents.get(uid ?? '') ?? []) {
        this.enqueue('dependent', this.places.get(dep)!);
      }
      // A foreground owner may have been waiting for this dependent.
      this.enqueueOwners(place, before);
      return;
    }
    if (deletingWith(obj, ORPHAN_FINALIZER) || deletingWith(obj, FOREGROUND_FINALIZER)) {
      this.enqueue('owner', place);
    }
    if (!jsonEqual(before, after)) {
      if (after.some((r) => this.seen.has(r.uid))) this.enqueue('dependent', place);
      const gone = new Set(after.map((r) => r.uid));
      this.enqueueOwners(
        place,
        before.filter((r) => !gone.has(r.uid)),
      );
    }
    // A dependent that started terminating (or stopped blocking) may release a foreground owner.
    if (
      event.prev !== undefined &&
      !jsonEqual(event.prev.obj.metadata?.finalizers, obj.metadata?.finalizers)
    ) {
      this.enqueueOwners(place, after);
    }
  }

  private remember(uid: string): void {
    if (this.seen.has(uid)) return;
    this.seen.add(uid);
    if (this.seen.size > REMEMBERED_UIDS) this.seen.delete(this.seen.values().next().value!);
  }

  private index(place: Place, before: { uid: string }[], after: { uid: string }[]): void {
    const id = placeId(place);
    for (const r of before) this.dependents.get(r.uid)?.delete(id);
    for (const r of before)
      if (this.dependents.get(r.uid)?.size === 0) this.dependents.delete(r.uid);
    if (after.length === 0) {
      this.places.delete(id);
      return;
    }
    this.places.set(id, place);
    for (const r of after) {
      let set = this.dependents.get(r.uid);
      if (set === undefined) this.dependents.set(r.uid, (set = new Set()));
      set.add(id);
    }
  }

  private enqueueOwners(dependent: Place, refs: ReturnType<typeof ownerRefs>): void {
    for (const r of refs) {
      const owner = resolveOwner(this.objects, this.types, r, dependent);
      if (owner.kind === 'waiting') this.enqueue('owner', owner.place);
    }
  }

  private enqueue(op: Work['op'], place: Place): void {
    const key = `${op}\u0000${placeId(place)}`;
    this.queue.delete(key);
    this.queue.set(key, { op, place });
    this.running ??= Promise.resolve().then(() => this.drain());
  }

  private drain(): void {
    for (let work = this.next(); work !== undefined; work = this.next()) {
      try {
        if (work.op === 'dependent') this.attemptToDelete(work.place);
        else this.finishOwner(work.place);
      } catch {
        // A write the store refuses (an object changed under us) is dropped, as the real GC
        // would retry it on the next change of that object.
      }
    }
    this.running = undefined;
  }

  private next(): Work | undefined {
    const first = this.queue.entries().next();
    if (first.done) return undefined;
    this.queue.delete(first.value[0]);
    return first.value[1];
  }

  /** attemptToDeleteItem: delete a dependent without solid owners, or drop its dead references. */
  private attemptToDelete(place: Place): void {
    const entry = entryAt(this.objects, place);
    if (entry === undefined) return;
    const obj = entry.obj;
    // Being deleted is a one-way trip; a foreground owner is handled as an owner.
    if (obj.metadata?.deletionTimestamp != null) {
      if (deletingWith(obj, FOREGROUND_FINALIZER)) this.finishOwner(place);
      return;
    }
    const refs = ownerRefs(obj);
    if (refs.length === 0) return;
    const states = refs.map((r) => resolveOwner(this.objects, this.types, r, place));
    if (states.some((s) => s.kind === 'unresolvable')) return;
    const solid = states.some((s) => s.kind === 'solid');
    const waiting = states.some((s) => s.kind === 'waiting');
    if (solid) {
      const keep = refs.filter((_, i) => states[i].kind === 'solid');
      if (keep.length < refs.length) this.setOwnerRefs(place, obj, keep);
      return;
    }
    let policy: PropagationPolicy = 'Background';
    const own = [...(this.dependents.get(obj.metadata?.uid ?? '') ?? [])];
    if (waiting && own.length > 0) {
      // Deleted in the foreground in turn. When one of its own dependents is already deleting
      // its dependents (owners owning each other), its references to the waiting owners stop
      // blocking them, as the real GC does to break the cycle.
      const places = own.map((id) => this.places.get(id)!);
      if (places.some((p) => deletingWith(entryAt(this.objects, p)?.obj, FOREGROUND_FINALIZER))) {
        const unblocked = refs.map((r, i) =>
          states[i].kind === 'waiting' ? { ...r, blockOwnerDeletion: false } : r,
        );
        this.setOwnerRefs(place, obj, unblocked);
      }
      policy = 'Foreground';
    } else if ((obj.metadata?.finalizers ?? []).includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    else if ((obj.metadata?.finalizers ?? []).includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    deleteObject(this.objects, place.ref, place.namespace, place.name, {
      propagationPolicy: policy,
    });
  }

  /**
   * An owner terminating with a GC finalizer: `orphan` removes its dependents' references to it,
   * then the finalizer; `foregroundDeletion` deletes its dependents and removes the finalizer once
   * no dependent with `blockOwnerDeletion` is left.
   */
  private finishOwner(place: Place): void {
    const entry = entryAt(this.objects, place);
    if (entry === undefined) return;
    const owner = entry.obj;
    const uid = owner.metadata?.uid ?? '';
    const dependents = [...(this.dependents.get(uid) ?? [])].map((id) => this.places.get(id)!);
    if (deletingWith(owner, ORPHAN_FINALIZER)) {
      for (const dep of dependents) {
        const d = entryAt(this.objects, dep);
        if (d === undefined) continue;
        this.setOwnerRefs(
          dep,
          d.obj,
          ownerRefs(d.obj).filter((r) => r.uid !== uid),
        );
      }
      this.removeFinalizer(place, ORPHAN_FINALIZER);
      return;
    }
    if (!deletingWith(owner, FOREGROUND_FINALIZER)) return;
    const blocking = dependents.filter((dep) => {
      const d = entryAt(this.objects, dep);
      return ownerRefs(d?.obj).some((r) => r.uid === uid && r.blockOwnerDeletion === true);
    });
    if (blocking.length === 0) {
      this.removeFinalizer(place, FOREGROUND_FINALIZER);
      return;
    }
    // Dependents already terminating are waited for, not deleted again (and owners that own
    // each other in the foreground do not call each other forever).
    for (const dep of dependents) {
      if (entryAt(this.objects, dep)?.obj.metadata?.deletionTimestamp == null) {
        this.enqueue('dependent', dep);
      }
    }
  }

  private setOwnerRefs(
    place: Place,
    obj: KubernetesObject,
    refs: ReturnType<typeof ownerRefs>,
  ): void {
    const next = cloneObject(obj);
    if (refs.length === 0) delete next.metadata!.ownerReferences;
    else next.metadata!.ownerReferences = refs;
    writeUpdateEntry(this.objects, place.ref, obj, next);
  }

  private removeFinalizer(place: Place, finalizer: string): void {
    const entry = entryAt(this.objects, place)!;
    const next = cloneObject(entry.obj);
    const rest = (next.metadata!.finalizers ?? []).filter((f) => f !== finalizer);
    if (rest.length === 0) delete next.metadata!.finalizers;
    else next.metadata!.finalizers = rest;
    writeUpdateEntry(this.objects, place.ref, entry.obj, next);
  }
}
