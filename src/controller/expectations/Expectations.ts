import type { SchedulerLike, Subscription } from 'rxjs';
import type { KubernetesObject } from '../../types.js';
import type { RunGate } from '../queue/RunGate.js';
import { seenIn, shownBy, type Written } from './Written.js';

/** One written object one store has yet to show. */
interface Pending {
  readonly key: string;
  readonly written: Written;
  done: boolean;
}

/** What a key waits for: how many written objects, until when. */
interface KeyWait {
  pending: number;
  timer: Subscription | undefined;
}

/**
 * Read-your-own-writes, as client-go's ReplicaSet controller keeps "expectations": each
 * successful write of a key's run is remembered until the store it lands in shows it; until
 * then the key's next run is held back (this is the queue's {@link RunGate}). A write the store
 * already shows when it returns costs nothing; one it never shows is given up after
 * `timeoutMs` (on `scheduler`, so marble specs run it in virtual time), and the key's next run
 * is then told it may read stale stores (`takeStale`).
 *
 * Stores are numbers (the controller's sources, in order); an object is its key in its store.
 * Nothing is kept for a key with nothing pending, and the Maps are dropped whole when they
 * empty (a long-lived Map that deletes and adds keys promotes garbage: DESIGN, Known traps).
 *
 * ```
 * run of a:        -r(creates c@5)|
 * owned store:     ------------------c@5------
 * next run of a:   ---(a triggered; held)----r   (reads the store with c)
 * ```
 *
 * @example
 * const expectations = new Expectations(30_000, scheduler, (store, objectKey) => latest[store]?.get(objectKey));
 * expectations.expect('shop/web', [1], { kind: 'written', objectKey: 'shop/web-1', resourceVersion: '5' });
 * expectations.blocked('shop/web'); // true until store 1 shows shop/web-1@5, or 30 s
 */
export class Expectations implements RunGate {
  private keys = new Map<string, KeyWait>();
  private objects = new Map<string, Pending[]>();
  private stale = new Set<string>();
  private opened: (key: string) => void = () => {};
  private closed = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly scheduler: SchedulerLike,
    /** What store `store` holds under `objectKey` now. */
    private readonly current: (store: number, objectKey: string) => KubernetesObject | undefined,
  ) {}

  /** Whether any write waits to be seen: when not, events need not be looked at. */
  get waiting(): boolean {
    return this.objects.size > 0;
  }

  /** The run of `key` wrote `written`, which lands in each of `stores`. */
  expect(key: string, stores: readonly number[], written: Written): void {
    if (this.closed) return;
    let added = 0;
    for (const store of stores) {
      if (shownBy(written, this.current(store, written.objectKey))) continue;
      const id = objectId(store, written.objectKey);
      const pending: Pending = { key, written, done: false };
      const list = this.objects.get(id);
      if (list) list.push(pending);
      else this.objects.set(id, [pending]);
      added++;
    }
    if (added === 0) return;
    let wait = this.keys.get(key);
    if (!wait) this.keys.set(key, (wait = { pending: 0, timer: undefined }));
    wait.pending += added;
    // The key waits at most `timeoutMs` after its latest write returned.
    wait.timer?.unsubscribe();
    wait.timer = this.scheduler.schedule(() => this.expire(key), this.timeoutMs);
  }

  /** Store `store` applied an event of `object` (its key `objectKey`; `deleted`: a DELETED). */
  observe(store: number, objectKey: string, object: KubernetesObject, deleted: boolean): void {
    const id = objectId(store, objectKey);
    const list = this.objects.get(id);
    if (!list) return;
    const left = list.filter((pending) => {
      if (pending.done || !seenIn(pending.written, object, deleted)) return !pending.done;
      pending.done = true;
      this.settled(pending.key);
      return false;
    });
    if (left.length > 0) this.objects.set(id, left);
    else this.forgetObject(id);
  }

  blocked(key: string): boolean {
    return this.keys.size > 0 && this.keys.has(key);
  }

  takeStale(key: string): boolean {
    return this.stale.size > 0 && this.stale.delete(key);
  }

  listen(opened: (key: string) => void): void {
    this.opened = opened;
  }

  /** The controller stopped: no timer stays armed. */
  close(): void {
    this.closed = true;
    for (const wait of this.keys.values()) wait.timer?.unsubscribe();
    this.keys = new Map();
    this.objects = new Map();
  }

  /** One written object of `key` was seen: the key opens when none is left. */
  private settled(key: string): void {
    const wait = this.keys.get(key);
    if (!wait || --wait.pending > 0) return;
    wait.timer?.unsubscribe();
    this.forgetKey(key);
    this.opened(key);
  }

  /** `timeoutMs` passed since the key's latest write: it runs, told its reads may be stale. */
  private expire(key: string): void {
    if (this.closed || !this.keys.has(key)) return;
    for (const [id, list] of this.objects) {
      const left = list.filter((pending) => pending.key !== key);
      if (left.length === list.length) continue;
      if (left.length > 0) this.objects.set(id, left);
      else this.forgetObject(id);
    }
    this.forgetKey(key);
    this.stale.add(key);
    this.opened(key);
  }

  private forgetKey(key: string): void {
    if (this.keys.size === 1) this.keys = new Map();
    else this.keys.delete(key);
  }

  private forgetObject(id: string): void {
    if (this.objects.size === 1) this.objects = new Map();
    else this.objects.delete(id);
  }
}

function objectId(store: number, objectKey: string): string {
  return `${store} ${objectKey}`;
}
