import { randomUUID } from 'node:crypto';
import { jsonEqual } from './jsonEqual.js';
import { isValidSegment } from '../../objects/resourcePath.js';
import { versionOf } from '../../objects/versionOf.js';
import type { KubernetesObject } from '../../types.js';
import { mediaType, parseJson, readBody } from './body.js';
import { checkUnknownFields } from './openapi/fieldValidation.js';
import { parseRequestObject } from './protobuf/parseRequestObject.js';
import { objectKey } from './ObjectStore.js';
import type { Entry, ObjectStore, ResourceStore } from './ObjectStore.js';
import { checkWriteOptions, managerOf, trackUpdate } from './apply/track.js';
import { applyPatch, assertPatchType } from './patch.js';
import { schemaFor } from './patchSchemas.js';
import type { Route } from './paths.js';
import type { Reply, Request } from './protocol.js';
import type { ResourceTypes, ServedType } from './ResourceTypes.js';
import { sendJson } from './send.js';
import { badRequest, StatusError, statusBody } from './statusBody.js';
import { writeUpdateEntry } from './deletion/deleteObject.js';
import { checkDeletionFields, decodeFinalizers, withWarnings } from './deletion/finalizers.js';
import { dryRunQuery } from './deletion/options.js';
import { prepareCreate, prepareUpdate, specChanged } from './strategy.js';

/**
 * What a write stored (or would store, on a dry run): the object, to read only, and its JSON,
 * the response's body (the stored entry's own: the object is serialised once per write).
 */
export type Written = Pick<Entry, 'obj' | 'json'>;

/** A dry run's object, which nothing stored: serialised here. */
function unstored(obj: KubernetesObject): Written {
  return { obj, json: JSON.stringify(obj) };
}

/** What a write needs of the server. */
export interface WriteContext {
  readonly objects: ObjectStore;
  readonly types: ResourceTypes;
}

type ObjectRoute = Extract<Route, { kind: 'object' }>;
type ResourceRoute = Extract<Route, { kind: 'object' | 'collection' }>;
type Obj = KubernetesObject & Record<string, unknown>;

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `pods` or `deployments.apps`: how Status messages name a resource. */
export function qualified(route: ResourceRoute): string {
  const { group, plural } = route.resource;
  return group === '' ? plural : `${plural}.${group}`;
}

export function notFound(route: ResourceRoute, name: string): StatusError {
  const { group, plural } = route.resource;
  const details = { name, kind: plural, ...(group !== '' ? { group } : {}) };
  return new StatusError(
    statusBody(404, `${qualified(route)} "${name}" not found`, 'NotFound', details),
  );
}

function conflict(route: ResourceRoute, name: string, why: string): StatusError {
  const message = `Operation cannot be fulfilled on ${qualified(route)} "${name}": ${why}`;
  return new StatusError(
    statusBody(409, message, 'Conflict', { name, kind: route.resource.plural }),
  );
}

function invalid(kind: string, name: string, message: string): StatusError {
  return new StatusError(
    statusBody(422, `${kind} "${name}" is invalid: ${message}`, 'Invalid', { name, kind }),
  );
}

/** RFC 3339 in whole seconds, as the API server writes timestamps. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Whether the API server keeps `metadata.generation` for such an object. */
function tracksGeneration(obj: Obj, builtin: boolean): boolean {
  return !builtin || obj.spec !== undefined;
}

/** 404 for a namespaced resource without a namespace in the path, or the reverse. */
export function checkScope(ctx: WriteContext, route: ResourceRoute): ServedType | undefined {
  const type = ctx.types.lookup(route.resource);
  if (type !== undefined && type.namespaced !== (route.namespace !== undefined)) {
    throw new StatusError(statusBody(404, 'the server could not find the requested resource'));
  }
  return type;
}

/** The server's checks on a resource and an incoming object; fills kind/apiVersion/namespace. */
export function admit(
  ctx: WriteContext,
  route: ResourceRoute,
  obj: Obj,
  urlName?: string,
): ResourceStore {
  const type = checkScope(ctx, route);
  const store = ctx.objects.resource(route.resource);
  const apiVersion = store.apiVersion;
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== store.kind) {
    throw badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${store.kind})`,
    );
  }
  const meta = (obj.metadata ??= {});
  if (typeof meta !== 'object' || meta === null) throw badRequest('metadata must be an object');
  if (route.namespace !== undefined) {
    if (
      meta.namespace !== undefined &&
      meta.namespace !== '' &&
      meta.namespace !== route.namespace
    ) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = route.namespace;
  } else if (type !== undefined) delete meta.namespace;
  if (urlName !== undefined && meta.name !== urlName) {
    throw badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${urlName})`,
    );
  }
  obj.apiVersion = apiVersion;
  obj.kind = store.kind;
  return store;
}

export function validName(store: ResourceStore, obj: Obj): string {
  const meta = obj.metadata!;
  if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string') {
    let suffix = '';
    for (let i = 0; i < 5; i++) {
      suffix += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
    }
    meta.name = meta.generateName + suffix;
  }
  const name = meta.name;
  if (typeof name !== 'string' || name === '') {
    throw invalid(
      store.kind,
      '',
      'metadata.name: Required value: name or generateName is required',
    );
  }
  if (!isValidSegment('name', name)) {
    throw invalid(
      store.kind,
      name,
      `metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return name;
}

/** `dryRun=All` in the query of a write; another value answers the handler's 422. */
export function dryRun(
  query: Record<string, string>,
  options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' = 'UpdateOptions',
): boolean {
  return dryRunQuery(query, options);
}

/** POST to a collection: creates, with the uid, timestamp and generation the server sets. */
export async function create(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: ResourceRoute,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  if (route.kind !== 'collection') throw methodNotAllowed();
  checkScope(ctx, route);
  const isDryRun = dryRun(query, 'CreateOptions');
  const obj = parseRequestObject(await readBody(req), req.headers['content-type']) as Obj;
  checkWriteOptions(query, 'CreateOptions');
  const store = admit(ctx, route, obj);
  decodeFinalizers(obj, store.kind, versionOf(route.resource), 'body');
  checkUnknownFields(ctx.types, route.resource, store.kind, obj, query, headers);
  validName(store, obj);
  trackUpdate(ctx, route.resource, undefined, obj, managerOf(req, query));
  const created = commitCreate(ctx, route, obj, isDryRun);
  sendJson(res, 201, created.json, withWarnings(headers, created.obj));
}

/**
 * Stores a new, admitted and named object as a create does: 409 when it exists; uid, timestamp
 * and generation set by the server.
 */
export function commitCreate(
  ctx: WriteContext,
  route: ResourceRoute,
  obj: Obj,
  isDryRun: boolean,
): Written {
  const store = ctx.objects.resource(route.resource);
  const name = obj.metadata!.name!;
  if (store.objects.has(objectKey(route.namespace, name))) {
    const { plural, group } = route.resource;
    const details = { name, kind: plural, ...(group !== '' ? { group } : {}) };
    const message = `${qualified(route)} "${name}" already exists`;
    throw new StatusError(statusBody(409, message, 'AlreadyExists', details));
  }
  prepareCreate(ctx.types.lookup(route.resource), route, obj);
  const meta = obj.metadata!;
  meta.uid = randomUUID();
  meta.creationTimestamp = now() as unknown as Date;
  delete meta.resourceVersion;
  checkDeletionFields(obj, undefined, store.kind, route.resource.group);
  if (tracksGeneration(obj, ctx.types.lookup(route.resource)?.builtin ?? false))
    meta.generation = 1;
  else delete meta.generation;
  // The pod strategy ignores a posted status: a new pod is Pending until a kubelet takes it.
  if (route.resource.group === '' && route.resource.plural === 'pods')
    obj.status = { phase: 'Pending' };
  return isDryRun ? unstored(obj) : ctx.objects.createEntry(route.resource, obj);
}

/**
 * Replaces `prev` with `next` as an update does: the resourceVersion and uid in `next`, when
 * set, are preconditions (409); uid and creationTimestamp stay; generation follows the spec;
 * the deletion fields follow kube-apiserver's rules, and an update that removes the last
 * finalizer of a terminating object deletes it.
 */
export function commitUpdate(
  ctx: WriteContext,
  route: ObjectRoute,
  prev: Entry,
  next: Obj,
  isDryRun: boolean,
): Written {
  const before = prev.obj as Obj;
  const type = ctx.types.lookup(route.resource);
  prepareUpdate(type, route, before, next);
  const meta = next.metadata!;
  if (
    meta.resourceVersion !== undefined &&
    meta.resourceVersion !== '' &&
    meta.resourceVersion !== String(prev.rv)
  ) {
    throw conflict(
      route,
      route.name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== before.metadata?.uid) {
    throw conflict(
      route,
      route.name,
      `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${before.metadata?.uid ?? ''}`,
    );
  }
  meta.uid = before.metadata?.uid;
  meta.creationTimestamp = before.metadata?.creationTimestamp;
  checkDeletionFields(
    next,
    before,
    ctx.objects.resource(route.resource).kind,
    route.resource.group,
  );
  if (tracksGeneration(next, type?.builtin ?? false)) {
    const generation = before.metadata?.generation ?? 1;
    meta.generation = specChanged(type, before, next) ? generation + 1 : generation;
  } else delete meta.generation;
  if (isDryRun) return unstored(next);
  // kube-apiserver stores nothing for an update that changes nothing (etcd3's GuaranteedUpdate
  // compares the bytes): the resourceVersion stays and watchers see no event.
  if (isNoOp(before, next)) return prev;
  return writeUpdateEntry(ctx.objects, route.resource, before, next);
}

/** Whether `next` is `before` but for its resourceVersion and managedFields' times. */
function isNoOp(before: Obj, next: Obj): boolean {
  const comparable = (o: Obj) => ({
    ...o,
    metadata: {
      ...o.metadata,
      resourceVersion: undefined,
      managedFields: o.metadata?.managedFields?.map((f) => ({ ...f, time: undefined })),
    },
  });
  return jsonEqual(comparable(before), comparable(next));
}

export function current(ctx: WriteContext, route: ObjectRoute): Entry {
  const entry = ctx.objects
    .resource(route.resource)
    .objects.get(objectKey(route.namespace, route.name));
  if (entry === undefined) throw notFound(route, route.name);
  return entry;
}

/** PUT: replaces an object (409 on a stale resourceVersion, 404 when it does not exist). */
export async function replace(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: ObjectRoute,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  const isDryRun = dryRun(query, 'UpdateOptions');
  const obj = parseRequestObject(await readBody(req), req.headers['content-type']) as Obj;
  checkWriteOptions(query, 'UpdateOptions');
  const store = admit(ctx, route, obj, route.name);
  decodeFinalizers(obj, store.kind, versionOf(route.resource), 'body');
  checkUnknownFields(ctx.types, route.resource, store.kind, obj, query, headers);
  const prev = current(ctx, route);
  trackUpdate(ctx, route.resource, prev.obj, obj, managerOf(req, query), route.subresource);
  const updated = commitUpdate(ctx, route, prev, obj, isDryRun);
  sendJson(res, 200, updated.json, withWarnings(headers, updated.obj));
}

/** The strategic-merge schema of a resource: the built-in kinds only. */
export function strategicSchema(ctx: WriteContext, route: ResourceRoute, kind: string) {
  return ctx.types.lookup(route.resource)?.builtin ? schemaFor(kind) : undefined;
}

/** PATCH: merge, JSON or strategic merge patch of the current object. */
export async function patch(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: ObjectRoute,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  const type = mediaType(req.headers['content-type']);
  const schema = strategicSchema(ctx, route, ctx.objects.resource(route.resource).kind);
  assertPatchType(type, schema);
  const isDryRun = dryRun(query, 'PatchOptions');
  const body = parseJson(await readBody(req));
  checkWriteOptions(query, 'PatchOptions');
  const { kind } = ctx.objects.resource(route.resource);
  // A patch's own fields are checked (a JSON patch's operations are not objects to check).
  if (!Array.isArray(body))
    checkUnknownFields(ctx.types, route.resource, kind, body, query, headers);
  const prev = current(ctx, route);
  const patched = applyPatch(type, prev.obj, body, schema);
  if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) {
    throw badRequest('the patch made the object something other than an object');
  }
  const next = patched as Obj;
  const store = admit(ctx, route, next, route.name);
  decodeFinalizers(next, store.kind, versionOf(route.resource), 'patch');
  trackUpdate(ctx, route.resource, prev.obj, next, managerOf(req, query), route.subresource);
  const updated = commitUpdate(ctx, route, prev, next, isDryRun);
  sendJson(res, 200, updated.json, withWarnings(headers, updated.obj));
}

export function methodNotAllowed(): StatusError {
  return new StatusError(
    statusBody(405, 'the server does not allow this method on the requested resource'),
  );
}
