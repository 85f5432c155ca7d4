// Server-side apply requests for the apply specs: PATCH with application/apply-patch+yaml and a
// fieldManager, and the managedFields of an answer in a compact form to compare with.
import type { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { request } from '../client.js';
import type { Reply } from '../client.js';

export const APPLY = 'application/apply-patch+yaml';
export const PODS = '/api/v1/namespaces/default/pods';
export const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
export const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** Applies `config` (an object is sent as JSON, a string as YAML) as `manager`. */
export function apply(
  server: FakeKubeApiServer,
  path: string,
  config: unknown,
  manager: string | undefined,
  query: Record<string, string> = {},
): Promise<Reply> {
  const params = new URLSearchParams(query);
  if (manager !== undefined) params.set('fieldManager', manager);
  const q = params.toString();
  return request(server, 'PATCH', q === '' ? path : `${path}?${q}`, config, { contentType: APPLY });
}

/** `manager/operation` → fieldsV1, for every managedFields entry of `obj`. */
export function owners(obj: any): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of obj?.metadata?.managedFields ?? []) {
    out[`${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`] = e.fieldsV1;
  }
  return out;
}

/** A config map applied by a test: `data` as given. */
export function configMap(
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(labels !== undefined ? { labels } : {}) },
    data,
  };
}
