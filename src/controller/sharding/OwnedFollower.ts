import { defaultKey } from '../../objects/defaultKey.js';
import { resourceIdentity } from '../../objects/resourceIdentity.js';
import type { Store } from '../../operators/store/Store.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';
import type { LabelWriter } from './LabelWriter.js';
import { BY_OWNER_UID, ownedTarget, ownerOf } from './ownedFollow.js';

/**
 * The sharder's half for owned objects: each carries its controller owner's member. The
 * sharder's owned stores (indexed by owner uid) are set as they come (`stores[i]`); both checks
 * write through the sharder's {@link LabelWriter}.
 *
 * @example
 * const follower = new OwnedFollower([replicasets], label, 'apps/v1', writer);
 * if (follower.ready(deployment, 'pod-2')) assign(deployment, 'pod-2');
 */
export class OwnedFollower {
  readonly stores: Array<Store<KubernetesObject, typeof BY_OWNER_UID> | undefined>;
  /** Owned objects found following the owner snapshot they map to. */
  private followed = new WeakMap<KubernetesObject, KubernetesObject>();

  constructor(
    private readonly resources: ReadonlyArray<ResourceRef<any>>,
    private readonly assignLabel: string,
    private readonly primaryApiVersion: string,
    private readonly writer: LabelWriter,
  ) {
    this.stores = resources.map(() => undefined);
  }

  /** Whether every owned store has come. */
  get synced(): boolean {
    return this.stores.every((store) => store !== undefined);
  }

  /**
   * Whether every object `owner` controls carries `member`, writing those that do not (the
   * owner waits for them: `false`).
   */
  ready(owner: KubernetesObject, member: string): boolean {
    const uid = owner.metadata?.uid;
    if (!uid) return true;
    let ready = true;
    this.resources.forEach((resource, i) => {
      for (const object of this.stores[i]!.byIndex(BY_OWNER_UID, uid)) {
        if (object.metadata?.labels?.[this.assignLabel] === member) continue;
        ready = false;
        const id = `${resourceIdentity(resource)} ${defaultKey(object)}`;
        if (this.writer.has(id) || this.writer.full) continue;
        this.writer.write(resource, id, object, { [this.assignLabel]: member });
      }
    });
    return ready;
  }

  /** Owned objects whose label differs from their assigned owner's are given the owner's. */
  follow(primaries: Store<KubernetesObject, string>, live: Set<string>): void {
    const { assignLabel, writer } = this;
    this.resources.forEach((resource, i) => {
      for (const object of this.stores[i]!.values()) {
        if (writer.full) return;
        const owner = ownerOf(object, this.primaryApiVersion, primaries);
        if (owner === undefined || this.followed.get(object) === owner) continue;
        const target = ownedTarget(owner, assignLabel, (member) => live.has(member));
        const id = `${resourceIdentity(resource)} ${defaultKey(object)}`;
        if (writer.has(id)) continue;
        if (target === undefined || object.metadata?.labels?.[assignLabel] === target) {
          this.followed.set(object, owner);
        } else {
          writer.write(resource, id, object, { [assignLabel]: target });
        }
      }
    });
  }
}
