import { checkUnknownFields } from '../openapi/fieldValidation.js';
import { CORE_SCHEMA, load } from 'js-yaml';
import { versionOf } from '../../../objects/versionOf.js';
import { readBody } from '../body.js';
import { decodeFinalizers, withWarnings } from '../deletion/finalizers.js';
import { objectKey } from '../ObjectStore.js';
import type { Route } from '../paths.js';
import type { Reply, Request } from '../protocol.js';
import { sendJson } from '../send.js';
import { badRequest } from '../statusBody.js';
import { admit, commitCreate, commitUpdate, current, dryRun, validName } from '../writes.js';
import type { WriteContext } from '../writes.js';
import { jsonEqual } from '../jsonEqual.js';
import { applyConfig } from './fieldManager.js';
import { lastAppliedRelief, syncLastApplied } from './lastApplied.js';
import { checkWriteOptions, trackingFor } from './track.js';

type ObjectRoute = Extract<Route, { kind: 'object' }>;
type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };

/** The Go type name encoding/json reports for a value that is not an object. */
function goType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * The applied configuration: YAML or JSON (JSON is YAML), an object; 400 as kube-apiserver
 * answers otherwise. An empty body is an empty configuration (refused later by its type).
 */
export function parseApplyBody(body: Buffer): Obj {
  let value: unknown;
  try {
    // The core schema: no timestamps or binary, so values stay JSON as the API server reads them.
    value = load(body.toString('utf8'), { schema: CORE_SCHEMA });
  } catch (e) {
    throw badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goType(value)} into Go value of type map[string]interface {}`,
    );
  }
  return value as Obj;
}

/** `apps/v1, Kind=Deployment` (`/v1, Kind=Pod`): a GroupVersionKind as Go prints it. */
function gvkString(obj: Obj): string {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${gv}, Kind=${typeof obj.kind === 'string' ? obj.kind : ''}`;
}

/** `force=true` (the query is a Go bool). */
function forced(query: Record<string, string>): boolean {
  return ['true', 'True', 'TRUE', '1', 't', 'T'].includes(query.force ?? '');
}

/**
 * PATCH with `application/apply-patch+yaml`: server-side apply by `fieldManager`, creating the
 * object when it does not exist (201). A no-op apply stores nothing (the resourceVersion stays).
 * With `subresource: 'status'` (PATCH of `.../status`), the object must exist and only its
 * status changes; the manager's entry is the status subresource's.
 */
export async function applyPatchRequest(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: ObjectRoute,
  query: Record<string, string>,
  headers: Record<string, string>,
  subresource?: 'status',
): Promise<void> {
  const body = await readBody(req);
  checkWriteOptions(query, 'PatchOptions', true);
  const isDryRun = dryRun(query, 'PatchOptions');
  const config = parseApplyBody(body);
  const store = ctx.objects.resource(route.resource);
  if (config.apiVersion !== store.apiVersion || config.kind !== store.kind) {
    throw badRequest(`invalid object type: ${gvkString(config)}`);
  }
  if (config.metadata?.managedFields !== undefined) {
    throw badRequest('metadata.managedFields must be nil');
  }
  checkUnknownFields(ctx.types, route.resource, store.kind, config, query, headers);
  const live =
    subresource === undefined
      ? store.objects.get(objectKey(route.namespace, route.name))
      : current(ctx, route);
  const tracking = trackingFor(
    ctx,
    route.resource,
    store.kind,
    store.apiVersion,
    subresource ?? 'object',
  );
  const manager = query.fieldManager;
  // kube-apiserver eases `kubectl apply --server-side` after client-side `kubectl apply`.
  const kubectl = manager === 'kubectl';
  const liveObj = live?.obj as Obj | undefined;
  const obj = applyConfig(liveObj, config, manager, forced(query), tracking, {
    subresource,
    relief: kubectl ? () => lastAppliedRelief(liveObj, tracking) : undefined,
  });
  if (kubectl) syncLastApplied(obj, config);
  const meta = obj.metadata ?? {};
  // What the patch handler checks of the result (checkName), before the create/update checks.
  if (meta.name !== route.name) {
    throw badRequest(
      `the name of the object (${String(meta.name ?? '')}) does not match the name on the URL (${route.name})`,
    );
  }
  if (route.namespace !== undefined && meta.namespace !== undefined && meta.namespace !== '') {
    if (meta.namespace !== route.namespace) {
      throw badRequest(
        `the namespace of the object (${String(meta.namespace)}) does not match the namespace on the request (${route.namespace})`,
      );
    }
  }
  admit(ctx, route, obj, route.name);
  // The merged object's finalizers are checked as a patch's are (422 when not strings).
  decodeFinalizers(obj, store.kind, versionOf(route.resource), 'patch');
  if (live === undefined) {
    validName(store, obj);
    const created = commitCreate(ctx, route, obj, isDryRun);
    sendJson(res, 201, created.json, withWarnings(headers, created.obj));
  } else if (jsonEqual(live.obj, obj)) {
    sendJson(res, 200, live.json, withWarnings(headers, live.obj));
  } else {
    const updated = commitUpdate(ctx, route, live, obj, isDryRun);
    sendJson(res, 200, updated.json, withWarnings(headers, updated.obj));
  }
}
