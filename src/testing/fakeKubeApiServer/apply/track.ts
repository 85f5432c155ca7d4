import type { ResourceRef } from '../../../types.js';
import { objectKey } from '../ObjectStore.js';
import type { ObjectStore } from '../ObjectStore.js';
import type { Request } from '../protocol.js';
import { CRDS } from '../ResourceTypes.js';
import type { ResourceTypes } from '../ResourceTypes.js';
import { StatusError, statusBody } from '../statusBody.js';
import type { KubeStatus } from '../statusBody.js';
import type { FieldPath } from './fieldPath.js';
import { recordUpdate } from './fieldManager.js';
import type { Tracking } from './fieldManager.js';
import { builtinSsaType, DEDUCED, openApiSsaType, withObjectMeta } from './ssaSchema.js';

/** What tracking needs of the server. */
export interface TrackContext {
  readonly objects: ObjectStore;
  readonly types: ResourceTypes;
}

/** kube-apiserver's limit on `fieldManager` (metav1 FieldManagerMaxLength). */
export const FIELD_MANAGER_MAX = 128;

/**
 * Struct fields the built-in Go types always hold (non-pointer): never "added" themselves by an
 * Update, and kept (empty) when pruning empties them.
 */
const ALWAYS_PRESENT = new Set([
  'f:metadata',
  'f:spec',
  'f:status',
  'f:template',
  'f:strategy',
  'f:updateStrategy',
  'f:resources',
]);

interface CrdVersion {
  name?: string;
  schema?: { openAPIV3Schema?: unknown };
  subresources?: { status?: unknown };
}

/** The stored CRD's version a custom resource is served from (its schema, its subresources). */
function crdVersion(
  ctx: TrackContext,
  resource: ResourceRef<unknown>,
  version: string,
): CrdVersion | undefined {
  const crds = ctx.objects.resource(CRDS).objects;
  const crd = crds.get(objectKey(undefined, `${resource.plural}.${resource.group}`))?.obj as
    { spec?: { versions?: CrdVersion[] } } | undefined;
  return crd?.spec?.versions?.find((v) => v.name === version);
}

const isStatus = (p: FieldPath): boolean => p[0] === 'f:status';

/**
 * How the objects of `resource` are tracked (kind and apiVersion as the store serves them),
 * through the object itself or its `status` subresource: where there is a status subresource
 * (every built-in kind, a CRD that declares one), the object's writes do not own status and
 * the subresource's own nothing else, as kube-apiserver resets those fields.
 */
export function trackingFor(
  ctx: TrackContext,
  resource: ResourceRef<unknown>,
  kind: string,
  apiVersion: string,
  endpoint: 'object' | 'status' = 'object',
): Tracking {
  const builtin = ctx.types.lookup(resource)?.builtin ?? false;
  const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
  const crd = builtin ? undefined : crdVersion(ctx, resource, version);
  const hasStatus = builtin || crd?.subresources?.status !== undefined;
  const reset =
    endpoint === 'status' ? (p: FieldPath) => !isStatus(p) : hasStatus ? isStatus : () => false;
  if (builtin) {
    return {
      type: builtinSsaType(kind),
      apiVersion,
      always: (p: FieldPath) => ALWAYS_PRESENT.has(p[p.length - 1]),
      reset,
    };
  }
  const schema = crd?.schema?.openAPIV3Schema;
  return {
    type: withObjectMeta(schema === undefined ? DEDUCED : openApiSsaType(schema)),
    apiVersion,
    always: (p: FieldPath) => p.length === 1 && p[0] === 'f:metadata',
    reset,
  };
}

/**
 * The manager of an ordinary write: the `fieldManager` query parameter, else the program name
 * of the User-Agent (`kubectl/v1.32.0 (linux/amd64)` → `kubectl`), as kube-apiserver names it.
 */
export function managerOf(req: Request, query: Record<string, string>): string {
  if (query.fieldManager !== undefined && query.fieldManager !== '') return query.fieldManager;
  const agent = req.headers['user-agent'] ?? '';
  return [...agent.split('/')[0]].filter((c) => !/\p{C}/u.test(c)).join('');
}

type Options = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/**
 * 422 as kube-apiserver validates a write's options: `fieldManager` at most 128 bytes of
 * printable characters, required for an apply; `force` only for an apply.
 */
export function checkWriteOptions(
  query: Record<string, string>,
  options: Options,
  apply = false,
): void {
  const causes: Array<{ reason: string; message: string; field: string }> = [];
  const manager = query.fieldManager ?? '';
  if (options === 'PatchOptions' && !apply && query.force !== undefined) {
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: may not be specified for non-apply patch',
      field: 'force',
    });
  }
  if (apply && manager === '') {
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: is required for apply patch',
      field: 'fieldManager',
    });
  }
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${FIELD_MANAGER_MAX} bytes`,
      field: 'fieldManager',
    });
  }
  const bad = [...manager].find((c) => /\p{C}/u.test(c));
  if (bad !== undefined) {
    const code = bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(manager)}: invalid character U+${code}`,
      field: 'fieldManager',
    });
  }
  if (causes.length === 0) return;
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const message = `${options}.meta.k8s.io "" is invalid: ${list.length === 1 ? list[0] : `[${list.join(', ')}]`}`;
  // The options have no name: Go omits the empty name from the details.
  const details = {
    group: 'meta.k8s.io',
    kind: options,
    causes,
  } as KubeStatus['details'];
  throw new StatusError(statusBody(422, message, 'Invalid', details));
}

/**
 * Records an ordinary write in `next.metadata.managedFields` (see recordUpdate); what the
 * server's write handlers call before they store (`subresource`: `scale`, `status`).
 */
export function trackUpdate(
  ctx: TrackContext,
  resource: ResourceRef<unknown>,
  live: object | undefined,
  next: object,
  manager: string,
  subresource?: string,
): void {
  const n = next as { kind?: string; apiVersion?: string };
  const endpoint = subresource === 'status' ? 'status' : 'object';
  const t = trackingFor(ctx, resource, String(n.kind ?? ''), String(n.apiVersion ?? ''), endpoint);
  recordUpdate(live as never, next as never, manager, t, subresource);
}
