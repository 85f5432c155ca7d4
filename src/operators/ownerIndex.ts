import { metadataOf } from '../objects/metadataOf.js';

/**
 * A ready indexer for `toStore({ indexes })`: files an object under the uid of each of its
 * `metadata.ownerReferences`, so `store.byIndex('byOwner', replicaSet.metadata.uid)` lists the
 * pods a ReplicaSet owns (and a Deployment's ReplicaSets, on a store of ReplicaSets), in key
 * order, without scanning the store. Objects without owners are filed nowhere.
 *
 * ```
 * objects:   p1 (owner rs-1), p2 (owners rs-1, job-7), p3 (no owner)
 * byIndex('byOwner', 'rs-1'):  [p1, p2]
 * byIndex('byOwner', 'job-7'): [p2]
 * ```
 *
 * @example
 * resilientWatch(kc, pods)
 *   .pipe(toStore({ indexes: { byOwner: ownerIndex } }))
 *   .subscribe((store) => console.log(store.byIndex('byOwner', rsUid).length));
 */
export function ownerIndex(object: unknown): string[] | undefined {
  const references = metadataOf(object)?.ownerReferences;
  if (!references?.length) return undefined;
  const uids: string[] = [];
  for (const reference of references) {
    if (typeof reference?.uid === 'string' && reference.uid !== '') uids.push(reference.uid);
  }
  return uids;
}
