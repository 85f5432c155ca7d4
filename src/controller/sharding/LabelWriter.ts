import { resourceApi } from '../../client/write/resourceApi.js';
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
  /** The writes in flight, settled or not (what `close()` waits for). */
  private readonly inFlight = new Set<Promise<void>>();
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
    const written: Promise<void> = resourceApi(this.cluster, resource)
      .patch(metadata.name!, patch, { namespace: metadata.namespace, type: 'merge' })
      .then(
        () => {
          ended();
          if (!this.closed) this.done(true);
        },
        (error: unknown) => {
          ended();
          if (this.closed) return;
          this.logger?.debug?.(`sharder: ${id}: ${(error as Error).message}`);
          this.done(false);
        },
      );
    this.inFlight.add(written);
  }

  /** Starts no more writes; resolves once those in flight ended (answered or failed). */
  close(): Promise<void> {
    this.closed = true;
    return Promise.allSettled([...this.inFlight]).then(() => undefined);
  }
}
