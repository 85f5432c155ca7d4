import type { V1Status } from '@kubernetes/client-node';
import type { ResourceApi, ScaleApi, StatusApi } from '../../client/write/ResourceApiTypes.js';
import { namespacedKey } from '../../objects/defaultKey.js';
import type { KubernetesObject } from '../../types.js';
import type { Written } from './Written.js';

/**
 * What `recordingApi` tells of each successful write: what its store must show, and the
 * namespace the object is in (none when cluster-scoped), which says which stores it lands in.
 *
 * @example
 * const record: RecordWrite = (written, namespace) => expectations.expect(key, storesIn(namespace), written);
 */
export type RecordWrite = (written: Written, namespace: string | undefined) => void;

/**
 * `api` with every successful write told to `record` as the {@link Written} its answer
 * describes (create, replace, patch, apply, delete, `status.*` and `scale.*` writes); reads,
 * failed writes and `dryRun` writes (nothing stored) record nothing. What the caller gets is
 * what `api` answered, unchanged: recording never fails a write.
 *
 * ```
 * api.create(pod):   ----(answer pod@5)
 * record:            ----{ written, shop/pod, 5 }
 * caller:            ----pod@5
 * ```
 *
 * @example
 * const api = recordingApi(resourceApi(kc, pods), (written) => expectations.expect(key, [1], written));
 * await api.create(child); // remembered until the owned store shows it
 */
export function recordingApi<T>(api: ResourceApi<T>, record: RecordWrite): ResourceApi<T> {
  const object = <R>(write: Promise<R>, options: { dryRun?: boolean } | undefined) =>
    options?.dryRun ? write : write.then((answer) => (recordObject(answer, record), answer));
  const status: StatusApi<T> = {
    get: (name, options) => api.status.get(name, options),
    replace: (value, options) => object(api.status.replace(value, options), options),
    patch: (name, body, options) => object(api.status.patch(name, body, options), options),
    apply: (config, options) => object(api.status.apply(config, options), options),
  };
  const scale: ScaleApi = {
    get: (name, options) => api.scale.get(name, options),
    replace: (value, options) => object(api.scale.replace(value, options), options),
    patch: (name, body, options) => object(api.scale.patch(name, body, options), options),
  };
  return {
    get: (name, options) => api.get(name, options),
    list: (options) => api.list(options),
    create: (value, options) => object(api.create(value, options), options),
    replace: (value, options) => object(api.replace(value, options), options),
    patch: (name, body, options) => object(api.patch(name, body, options), options),
    apply: (config, options) => object(api.apply(config, options), options),
    delete: async (name, options) => {
      const answer = await api.delete(name, options);
      if (!options?.dryRun) recordDelete(answer, name, options?.namespace, record);
      return answer;
    },
    status,
    scale,
  };
}

/** An object answer (the object, a Scale): expect its version. */
function recordObject(answer: unknown, record: RecordWrite): void {
  const metadata = (answer as KubernetesObject | undefined)?.metadata;
  if (!metadata?.name || !metadata.resourceVersion) return;
  const { namespace, name, resourceVersion, uid } = metadata;
  record(
    { kind: 'written', objectKey: namespacedKey(namespace, name), resourceVersion, uid },
    namespace,
  );
}

/** A delete's answer: a Status (gone now) or the object (being deleted, at that version). */
function recordDelete(
  answer: unknown,
  name: string,
  namespace: string | undefined,
  record: RecordWrite,
): void {
  const status = answer as V1Status | undefined;
  if (status?.kind === 'Status') {
    const objectKey = namespacedKey(namespace, name);
    record({ kind: 'deleted', objectKey, uid: status.details?.uid }, namespace);
    return;
  }
  const metadata = (answer as KubernetesObject | undefined)?.metadata;
  const objectKey = namespacedKey(metadata?.namespace ?? namespace, metadata?.name ?? name);
  const { resourceVersion, uid } = metadata ?? {};
  record({ kind: 'deleting', objectKey, resourceVersion, uid }, metadata?.namespace ?? namespace);
}
