import { resourceApi } from '../../client/write/resourceApi.js';
import type { ResourceApi } from '../../client/write/ResourceApiTypes.js';
import { resourceIdentity } from '../../objects/resourceIdentity.js';
import type { Cluster, ResourceRef } from '../../types.js';
import type { ControllerSource } from '../ControllerConfig.js';
import type { Expectations } from './Expectations.js';
import { recordingApi } from './recordingApi.js';

/**
 * `ctx.api` of a controller's runs: `resourceApi(cluster, resource)` (one per resource ref,
 * made on first use), wrapped so that each successful write of the run of `key` is expected
 * in every store of the controller it lands in (see {@link landsIn}). A write to a resource
 * the controller does not watch is expected nowhere: nothing waits for it.
 *
 * @example
 * const api = writesOf(kc, [primary, ...owns], expectations);
 * await api('shop/web', pods).create(child); // shop/web runs again once the pods store has it
 */
export function writesOf(
  cluster: Cluster,
  sources: readonly ControllerSource<any>[],
  expectations: Expectations,
): <U>(key: string, resource: ResourceRef<U>) => ResourceApi<U> {
  const apis = new Map<ResourceRef<any>, ResourceApi<any>>();
  // Shape aside: a metadata-only store shows the version of a full object written.
  const identities = sources.map((source) => objectIdentity(source.resource));
  return <U>(key: string, resource: ResourceRef<U>) => {
    let api = apis.get(resource) as ResourceApi<U> | undefined;
    if (!api) apis.set(resource, (api = resourceApi(cluster, resource)));
    const identity = objectIdentity(resource);
    return recordingApi(api, (written, namespace) => {
      const stores: number[] = [];
      sources.forEach((source, index) => {
        if (identities[index] === identity && landsIn(source, namespace)) stores.push(index);
      });
      if (stores.length > 0) expectations.expect(key, stores, written);
    });
  };
}

/**
 * Whether a store sees an object written in `namespace`: its watch covers the namespace and
 * has no selector. A store with a label or field selector is not waited on (whether the
 * object matches it is the server's to say): its reads may miss the write.
 */
function landsIn(source: ControllerSource<any>, namespace: string | undefined): boolean {
  const { namespace: watched, labelSelector, fieldSelector } = source.options ?? {};
  if (labelSelector || fieldSelector) return false;
  return watched === undefined || watched === namespace;
}

function objectIdentity(resource: ResourceRef<unknown>): string {
  return resourceIdentity({ ...resource, shape: 'object' } as ResourceRef<unknown>);
}
