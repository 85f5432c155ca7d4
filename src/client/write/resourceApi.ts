import type { V1Scale, V1Status } from '@kubernetes/client-node';
import { WatchError } from '../../WatchError.js';
import type { Cluster, KubernetesObject, ListResult, ResourceRef } from '../../types.js';
import { describeType } from '../../objects/argumentChecks.js';
import { resourcePath } from '../../objects/resourcePath.js';
import { listPages } from '../request/listPages.js';
import type { ApplyConfiguration } from './ApplyConfiguration.js';
import { deleteBody } from './deleteBody.js';
import { objectBody, type ObjectFields } from './objectBody.js';
import { checkedOptions, checkListStrings } from './checkedOptions.js';
import { APPLY_CONTENT_TYPE, patchContentType } from './patchContentType.js';
import type { ResourceApi, ScaleApi, StatusApi } from './ResourceApiTypes.js';
import type {
  ApiListOptions,
  ApplyOptions,
  DeleteOptions,
  PatchOptions,
  RequestOptions,
  WriteOptions,
} from './ResourceApiOptions.js';
import { sendRequest } from './sendRequest.js';
import { writeQuery } from './writeQuery.js';
import { writeTarget } from './writeTarget.js';
import { writtenSecrets } from './writtenSecrets.js';

/** The page size of `list` when `limit` is not given (fromList's). */
const LIST_LIMIT = 500;
/** The largest list page read (fromList's bound). */
const MAX_PAGE_BYTES = 512 * 1024 * 1024;

type Subresource = 'status' | 'scale' | undefined;
/** What a subresource's whole-object writes carry instead of the ref's apiVersion and kind. */
const SCALE_BODY = { apiVersion: 'autoscaling/v1', kind: 'Scale' };

/**
 * Reads and writes one resource through kube-rx's request core: the transport, credentials and
 * redaction of its watches, over undici (HTTP/1.1), node:http2 or a browser's fetch alike.
 * See {@link ResourceApi} for the methods; each takes `signal`, resolves with what the server
 * returned and rejects with a `WatchError`. Nothing is checked or sent until a method is called:
 * an invalid ref, name, namespace, field manager or option rejects that call with BAD_REQUEST
 * and sends nothing.
 *
 * - The namespace of a namespaced resource comes from the object's `metadata.namespace` (create,
 *   replace, apply) or the `namespace` option (get, patch, delete, and list, where it is
 *   optional); one is required, never defaulted. A cluster-scoped ref (`namespaced: false`)
 *   refuses the option and never puts a namespace in the path.
 * - `apply` is server-side apply: `fieldManager` required, `force=true` only when asked, and
 *   `apiVersion` and `kind` filled from the ref (see {@link ApplyConfiguration}).
 * - An error never carries a Secret's data: the values a write sends are removed from it.
 *
 * @example
 * const api = resourceApi(kc, deployments);
 * await api.apply(
 *   { metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 3 } },
 *   { fieldManager: 'my-operator' },
 * );
 * await api.patch('web', { metadata: { labels: { tier: 'front' } } }, { namespace: 'shop', type: 'merge' });
 * const { items } = await api.list({ namespace: 'shop', labelSelector: 'app=web' });
 */
export function resourceApi<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
): ResourceApi<T> {
  const ref = resource as ResourceRef<unknown>;

  const read = async <R>(name: string, opts: RequestOptions | undefined, sub?: Subresource) => {
    const options = checkedOptions(ref, opts);
    const path = writeTarget(ref, { ...target(options), name: required(name), subresource: sub });
    return sendRequest<R>(cluster, { method: 'GET', path, signal: options.signal });
  };

  const replace = async <R>(object: R, opts: WriteOptions | undefined, sub?: Subresource) => {
    const options = checkedOptions(ref, opts);
    const fields = checkedObject(ref, object);
    const path = writeTarget(ref, {
      ...target(options, fields?.metadata?.namespace),
      name: fields?.metadata?.name,
      subresource: sub,
    });
    const body = objectBody(ref, fields, path, sub === 'scale' ? SCALE_BODY : {});
    const query = writeQuery(path, options);
    const secrets = writtenSecrets(ref, body);
    return sendRequest<R>(cluster, {
      method: 'PUT',
      path,
      query,
      body,
      signal: options.signal,
      secrets,
    });
  };

  const patch = async <R>(
    name: string,
    patchBody: unknown,
    options: PatchOptions,
    sub?: Subresource,
  ) => {
    const opts = checkedOptions(ref, options);
    const path = writeTarget(ref, { ...target(opts), name: required(name), subresource: sub });
    const contentType = patchContentType(path, opts.type, patchBody);
    const query = writeQuery(path, opts);
    const secrets = writtenSecrets(ref, patchBody);
    return sendRequest<R>(cluster, {
      method: 'PATCH',
      path,
      query,
      body: patchBody,
      contentType,
      signal: opts.signal,
      secrets,
    });
  };

  const apply = async (config: ApplyConfiguration<T>, options: ApplyOptions, sub?: Subresource) => {
    const opts = checkedOptions(ref, options);
    const fields = checkedObject(ref, config);
    const name = fields?.metadata?.name;
    const path = writeTarget(ref, {
      ...target(opts, fields?.metadata?.namespace),
      name: name === undefined ? '' : name,
      subresource: sub,
    });
    const body = objectBody(ref, fields, path, { requireKind: true });
    const query = writeQuery(path, { ...opts, apply: true });
    return sendRequest<T>(cluster, {
      method: 'PATCH',
      path,
      query,
      body,
      contentType: APPLY_CONTENT_TYPE,
      signal: opts.signal,
      secrets: writtenSecrets(ref, body),
    });
  };

  const status: StatusApi<T> = {
    get: (name, options) => read<T>(name, options, 'status'),
    replace: (object, options) => replace<T>(object, options, 'status'),
    patch: (name, body, options) => patch<T>(name, body, options, 'status'),
    apply: (config, options) => apply(config, options, 'status'),
  };
  const scale: ScaleApi = {
    get: (name, options) => read<V1Scale>(name, options, 'scale'),
    replace: (object, options) => replace<V1Scale>(object, options, 'scale'),
    patch: (name, body, options) => patch<V1Scale>(name, body, options, 'scale'),
  };

  return {
    get: (name, options) => read<T>(name, options),
    list: (options) => list<T>(cluster, ref, options),
    create: async (object, opts) => {
      const options = checkedOptions(ref, opts);
      const fields = checkedObject(ref, object);
      const { name } = fields?.metadata ?? {};
      const where = target(options, fields?.metadata?.namespace);
      // The name, when the object has one (else generateName), is checked as any other.
      if (name !== undefined && name !== '') writeTarget(ref, { ...where, name });
      const path = writeTarget(ref, where);
      const body = objectBody(ref, fields, path);
      const query = writeQuery(path, options);
      const secrets = writtenSecrets(ref, body);
      return sendRequest<T>(cluster, {
        method: 'POST',
        path,
        query,
        body,
        signal: options.signal,
        secrets,
      });
    },
    replace: (object, options) => replace<T>(object, options),
    patch: (name, body, options) => patch<T>(name, body, options),
    apply: (config, options) => apply(config, options),
    delete: async (name, opts: DeleteOptions | undefined) => {
      const options = checkedOptions(ref, opts);
      const path = writeTarget(ref, { ...target(options), name: required(name) });
      const body = deleteBody(path, options);
      const query = writeQuery(path, { dryRun: options.dryRun });
      return sendRequest<T | V1Status>(cluster, {
        method: 'DELETE',
        path,
        query,
        body,
        signal: options.signal,
      });
    },
    status,
    scale,
  };
}

/** A name where one is required: absent is the empty name, refused as such (not a list). */
function required(name: unknown): unknown {
  return name === undefined ? '' : name;
}

/**
 * An object or configuration argument, checked before its namespace is read, so that `null` is
 * answered as a bad object rather than a missing namespace.
 */
function checkedObject(ref: ResourceRef<unknown>, object: unknown): ObjectFields {
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    throw WatchError.badRequest(
      resourcePath(ref),
      `the object must be a JSON object, not ${describeType(object)}`,
    );
  return object as ObjectFields;
}

/** The namespace part of a request that needs one. */
function target(options: RequestOptions, objectNamespace?: unknown) {
  return { namespace: options?.namespace, objectNamespace, needsNamespace: true };
}

async function list<T>(
  cluster: Cluster,
  ref: ResourceRef<unknown>,
  opts: ApiListOptions | undefined,
): Promise<ListResult<T>> {
  const options = checkedOptions(ref, opts);
  const { limit = LIST_LIMIT, signal = new AbortController().signal } = options;
  const path = writeTarget(ref, { namespace: options.namespace, needsNamespace: false });
  checkListStrings(path, options);
  if (!(Number.isSafeInteger(limit) && limit >= 0))
    throw WatchError.badRequest(path, 'limit must be a whole number >= 0');
  if (signal.aborted) throw WatchError.aborted(path);
  return listPages<T>(
    cluster,
    {
      path,
      options,
      limit,
      maxPageBytes: MAX_PAGE_BYTES,
      decodePage: (page, token, items) => {
        // A broken proxy's `{}` must not read as an empty list (fromList's check).
        const version = page?.metadata?.resourceVersion;
        if (!Array.isArray(page?.items) || (!token && (typeof version !== 'string' || !version)))
          throw WatchError.parse(path, 'the list answer is not a list');
        for (const item of page.items) items.push(item as T);
        return { resourceVersion: version, continue: page.metadata?.continue };
      },
    },
    signal,
  );
}
