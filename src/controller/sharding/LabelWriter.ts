import { resourceApi } from '../../client/write/resourceApi.js';
import type { ResourceApi } from '../../client/write/ResourceApiTypes.js';
import type { Cluster, KubernetesObject, Logger, ResourceRef } from '../../types.js';
import type { LabelPatch } from './handshake.js';

/**
 * The sharder's label writes: at most `concurrency` in flight, one per object id at a time,
 * each a merge patch carrying the resourceVersion the sharder saw (a conflict means a stale
 * view). `done` is told of every write that ended: `ok`, or failed (a conflict, a gone object,
 * a fault). `close()` starts no more and resolves once those in flight ended: they are not
 * aborted, as aborting a request already sent does not unsend it (the server may apply it
 * later still); what depends on them (the sharder's claims) waits for their answers.
 *
 * @example
 * const writer = new LabelWriter(kc, 64, (ok) => (ok ? pass() : retryLater()));
 * if (!writer.full && !writer.has(id)) writer.write(configmaps, id, object, { [label]: 'pod-1' });
 */
export class LabelWriter {
  private readonly writing = new Set<string>();
  /**
   * Per object id, the resourceVersion its last write was made over, once the server answered
   * with another: until the sharder's store shows a version other than that one, the write's
   * event is on its way, and a write from the store's view would be a conflict (a look between
   * the answer and the event once cost ~2% of a 1 000-object move in 409s, each a sweep).
   * A write forgotten is set to `undefined`, not deleted: a key deleted and added again per
   * move makes V8 promote the map's replaced tables (DESIGN, Known traps). Keys go with their
   * object (`forget`).
   */
  private readonly wroteOver = new Map<string, string | undefined>();
  /** The writes in flight, settled or not (what `close()` waits for). */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly apis = new Map<ResourceRef<any>, ResourceApi<KubernetesObject>>();
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly concurrency: number,
    private readonly done: (ok: boolean) => void,
    private readonly logger?: Logger,
  ) {}

  /** Whether a write of `id` is in flight. */
  has(id: string): boolean {
    return this.writing.has(id);
  }

  /** Whether no write may start now. */
  get full(): boolean {
    return this.writing.size >= this.concurrency;
  }

  /**
   * Whether `id` at `version` is the view a write of ours already changed (its event not seen
   * yet: look again when it comes). Another version forgets that write.
   */
  wrote(id: string, version: string | undefined): boolean {
    const over = this.wroteOver.get(id);
    if (over === undefined) return false;
    if (over === version) return true;
    this.wroteOver.set(id, undefined);
    return false;
  }

  /** Forgets `id`'s last write (the object is gone). */
  forget(id: string): void {
    this.wroteOver.delete(id);
  }

  /** Whether no write is in flight. */
  get idle(): boolean {
    return this.writing.size === 0;
  }

  write(resource: ResourceRef<any>, id: string, object: KubernetesObject, labels: LabelPatch) {
    if (this.closed) return;
    const metadata = object.metadata!;
    this.writing.add(id);
    const patch = { metadata: { resourceVersion: metadata.resourceVersion, labels } };
    const ended = () => {
      this.writing.delete(id);
      this.inFlight.delete(written);
    };
    const written: Promise<void> = this.api(resource)
      .patch(metadata.name!, patch, { namespace: metadata.namespace, type: 'merge' })
      .then(
        (answer) => {
          ended();
          // An answer at the same version changed nothing (the server stores no such update,
          // and no event comes): nothing to wait for.
          const version = (answer as KubernetesObject | undefined)?.metadata?.resourceVersion;
          if (metadata.resourceVersion !== undefined && version !== metadata.resourceVersion) {
            this.wroteOver.set(id, metadata.resourceVersion);
          }
          if (!this.closed) this.done(true);
        },
        (error: unknown) => {
          ended();
          if (this.wroteOver.has(id)) this.wroteOver.set(id, undefined);
          if (this.closed) return;
          this.logger?.debug?.(`sharder: ${id}: ${(error as Error).message}`);
          this.done(false);
        },
      );
    this.inFlight.add(written);
  }

  /** The write API of `resource`, made once (a few resources: the primary and the owned). */
  private api(resource: ResourceRef<any>): ResourceApi<KubernetesObject> {
    let api = this.apis.get(resource);
    if (api === undefined) {
      api = resourceApi<KubernetesObject>(this.cluster, resource);
      this.apis.set(resource, api);
    }
    return api;
  }

  /** Starts no more writes; resolves once those in flight ended (answered or failed). */
  close(): Promise<void> {
    this.closed = true;
    this.wroteOver.clear();
    return Promise.allSettled([...this.inFlight]).then(() => undefined);
  }
}
