import { type Subscription, first } from 'rxjs';
import { defaultKey } from '../../objects/defaultKey.js';
import type { Informers } from '../../operators/createInformers.js';
import type { Cluster, KubernetesObject, ResourceRef, WatchOptions } from '../../types.js';
import type { MemberKeys } from './handshake.js';

/**
 * Fills `keys.inherited` with the version of every object the member's first synced list
 * (`options`: its label-selected primary watch) shows, for an incarnation that took its Lease
 * over from a sharder's claim: a move the claim sent on such a version may still be applied by
 * the server, so the member releases those versions instead of running them (the release
 * changes the version, and such a move then meets a conflict). Subscribe it before the
 * controller's own store: the shared watch hands the list to it first, so no run decides
 * before it is known.
 *
 * @example
 * const capture = inheritedVersions(informers, kc, configmaps, { labelSelector }, keys);
 * // ... capture.unsubscribe() when the incarnation ends
 */
export function inheritedVersions(
  informers: Informers,
  cluster: Cluster,
  resource: ResourceRef<any>,
  options: WatchOptions,
  keys: MemberKeys,
): Subscription {
  return informers
    .store(cluster, resource, options)
    .pipe(first((store) => store.synced))
    .subscribe((store) => {
      const versions = new Map<string, string | undefined>();
      for (const object of store.values() as Iterable<KubernetesObject>) {
        versions.set(defaultKey(object), object.metadata?.resourceVersion);
      }
      keys.inherited = versions;
    });
}
