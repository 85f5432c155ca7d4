import { assertObjectArgument } from '../objects/argumentChecks.js';
import type { ResourceRef, V1PartialObjectMetadata } from '../types.js';

/** The Accept header of a list of a `metadataOnly` resource (JSON when the server cannot). */
export const METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** The Accept header of a watch of a `metadataOnly` resource (JSON when the server cannot). */
export const METADATA_WATCH_ACCEPT =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * The same resource, asking only for the metadata of its objects: lists and watches send
 * `Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1` and yield
 * {@link V1PartialObjectMetadata} objects. The server serialises and sends far less, and a
 * store of them keeps far less; a server that ignores the header (full objects) still gives
 * metadata only, reduced on decode. Equal managedFields field sets are kept once
 * ({@link shareManagedFields}, after any `transform`): they are most of the heap of metadata,
 * and they are frozen. For controllers and dashboards that need names, labels, owners and
 * versions but not specs or statuses.
 *
 * ```
 * fromWatch(kc, pods):               --ADDED(V1Pod)--MODIFIED(V1Pod)--
 * fromWatch(kc, metadataOnly(pods)): --ADDED(meta)---MODIFIED(meta)---
 * ```
 *
 * @example
 * const podNames = resilientWatch(kc, metadataOnly(pods)).pipe(toStore());
 * podNames.subscribe((store) => console.log(store.size, 'pods'));
 */
export function metadataOnly<T>(resource: ResourceRef<T>): ResourceRef<V1PartialObjectMetadata> {
  // Called when a program is set up: a reference that is not one is a TypeError now.
  assertObjectArgument('metadataOnly', 'resource', resource);
  return Object.freeze({
    ...(resource as ResourceRef<unknown>),
    shape: 'metadata',
  }) as ResourceRef<V1PartialObjectMetadata>;
}

/**
 * An object as the server's PartialObjectMetadata: `{ apiVersion: 'meta.k8s.io/v1', kind:
 * 'PartialObjectMetadata', metadata }`, whatever the server sent (a full object is reduced).
 */
export function toPartialObjectMetadata(object: { metadata?: unknown }): V1PartialObjectMetadata {
  return {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadata',
    metadata: (object.metadata ?? {}) as V1PartialObjectMetadata['metadata'],
  };
}
