import type { KubernetesObject } from '../../types.js';
import { parseJson, readBody } from './body.js';
import type { ObjectStore } from './objectStore.js';
import { parseCollectionQuery } from './query.js';
import type { Route } from './paths.js';
import type { Reply, Request } from './protocol.js';
import { sendJson } from './send.js';
import { badRequest } from './statusBody.js';
import { current, dryRun, methodNotAllowed } from './writes.js';
import type { WriteContext } from './writes.js';
import { StatusError, statusBody } from './statusBody.js';

type ResourceRoute = Extract<Route, { kind: 'object' | 'collection' }>;

/** The DeleteOptions of a DELETE body (or none). */
interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

async function deleteOptions(req: Request): Promise<DeleteOptions> {
  const body = await readBody(req);
  if (body.length === 0) return {};
  const value = parseJson(body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('the body of a DELETE must be a DeleteOptions object');
  }
  return value as DeleteOptions;
}

function isDryRun(query: Record<string, string>, options: DeleteOptions): boolean {
  return dryRun(query) || (options.dryRun ?? []).includes('All');
}

/**
 * DELETE of one object: gone at once (no finalizers, no grace period); pods answer the deleted
 * pod, other kinds a Success Status, as kube-apiserver does. Preconditions answer 409.
 */
async function deleteOne(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: Extract<Route, { kind: 'object' }>,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  const options = await deleteOptions(req);
  const prev = current(ctx, route);
  const uid = prev.obj.metadata?.uid;
  const pre = options.preconditions ?? {};
  if (
    (pre.uid !== undefined && pre.uid !== uid) ||
    (pre.resourceVersion !== undefined && pre.resourceVersion !== String(prev.rv))
  ) {
    const which = pre.uid !== undefined && pre.uid !== uid ? 'UID' : 'ResourceVersion';
    const message = `Operation cannot be fulfilled on ${route.resource.plural} "${route.name}": Precondition failed: ${which} in precondition: ${
      which === 'UID' ? pre.uid : pre.resourceVersion
    }, ${which} in object meta: ${which === 'UID' ? (uid ?? '') : prev.rv}`;
    throw new StatusError(
      statusBody(409, message, 'Conflict', { name: route.name, kind: route.resource.plural }),
    );
  }
  const deleted = isDryRun(query, options)
    ? prev.obj
    : ctx.objects.delete(route.resource, route.namespace, route.name)!;
  const { group, plural } = route.resource;
  if (group === '' && plural === 'pods') {
    sendJson(res, 200, deleted, headers);
    return;
  }
  const details = { name: route.name, ...(group !== '' ? { group } : {}), kind: plural, uid };
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  sendJson(res, 200, status, headers);
}

/** DELETE of a collection: every object the namespace and selectors match; answers their list. */
async function deleteCollection(
  objects: ObjectStore,
  req: Request,
  res: Reply,
  route: Extract<Route, { kind: 'collection' }>,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  const options = await deleteOptions(req);
  const q = parseCollectionQuery(route, query);
  const store = objects.resource(route.resource);
  const doomed: KubernetesObject[] = [];
  for (const key of [...store.sortedKeys()]) {
    const entry = store.objects.get(key)!;
    if (q.matches === undefined || q.matches(entry.obj)) doomed.push(entry.obj);
  }
  const dry = isDryRun(query, options);
  const items = doomed.map((o) =>
    dry ? o : objects.delete(route.resource, o.metadata?.namespace, o.metadata!.name!)!,
  );
  const list = {
    kind: `${store.kind}List`,
    apiVersion: store.apiVersion,
    metadata: { resourceVersion: String(objects.rv) },
    items,
  };
  sendJson(res, 200, list, headers);
}

/** DELETE of an object or a collection. */
export function handleDelete(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: ResourceRoute,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  if (route.kind === 'collection') {
    return deleteCollection(ctx.objects, req, res, route, query, headers);
  }
  if (route.subresource !== undefined) throw methodNotAllowed();
  return deleteOne(ctx, req, res, route, query, headers);
}
