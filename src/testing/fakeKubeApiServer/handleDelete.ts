import type { KubernetesObject } from '../../types.js';
import { checkPreconditions, deleteObject } from './deletion/deleteObject.js';
import type { DeleteRequest } from './deletion/deleteObject.js';
import { warningHeaders } from './deletion/finalizers.js';
import { readDeleteOptions, validateDeleteOptions } from './deletion/options.js';
import type { DeleteOptions, PropagationPolicy } from './deletion/options.js';
import type { ObjectStore } from './ObjectStore.js';
import { parseCollectionQuery } from './query.js';
import type { Route } from './paths.js';
import type { Reply, Request } from './protocol.js';
import { sendJson } from './send.js';
import { checkScope, current, methodNotAllowed } from './writes.js';
import type { WriteContext } from './writes.js';

type ResourceRoute = Extract<Route, { kind: 'object' | 'collection' }>;
type ObjectRoute = Extract<Route, { kind: 'object' }>;

const JOB_WARNING =
  'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

function deleteRequest(options: DeleteOptions): DeleteRequest {
  return {
    propagationPolicy: options.propagationPolicy as PropagationPolicy | undefined,
    orphanDependents: options.orphanDependents,
    dryRun: (options.dryRun ?? []).includes('All'),
  };
}

/** The Warning kube-apiserver adds when a batch/v1 Job is deleted without a policy. */
function jobWarnings(route: ResourceRoute, options: DeleteOptions): string[] {
  const { group, plural } = route.resource;
  const unset = options.propagationPolicy === undefined && options.orphanDependents === undefined;
  return group === 'batch' && plural === 'jobs' && unset ? [JOB_WARNING] : [];
}

/**
 * DELETE of one object, as kube-apiserver's registry does it: options validated (422),
 * preconditions (409); an object left with finalizers (its own, or the propagation's `orphan` /
 * `foregroundDeletion`) answers 200 with itself, terminating (202 for `orphanDependents: false`);
 * an object gone answers its last state for pods, a Success Status for other kinds.
 */
async function deleteOne(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: ObjectRoute,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  const options = await readDeleteOptions(req, query);
  checkScope(ctx, route);
  const prev = current(ctx, route);
  validateDeleteOptions(options);
  const { group, plural } = route.resource;
  const kind = ctx.objects.resource(route.resource).kind;
  checkPreconditions(kind, group, prev, options.preconditions);
  const outcome = deleteObject(
    ctx.objects,
    route.resource,
    route.namespace,
    route.name,
    deleteRequest(options),
  )!;
  const answer = { ...headers, ...warningHeaders(jobWarnings(route, options)) };
  if (!outcome.deleted) {
    const status = options.orphanDependents === false ? 202 : 200;
    sendJson(res, status, outcome.object, answer);
    return;
  }
  if (group === '' && plural === 'pods') {
    sendJson(res, 200, outcome.object, answer);
    return;
  }
  const uid = prev.obj.metadata?.uid;
  const details = { name: route.name, ...(group !== '' ? { group } : {}), kind: plural, uid };
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  sendJson(res, 200, status, answer);
}

/**
 * DELETE of a collection: every object the namespace and selectors match goes through the same
 * deletion as a DELETE of it; answers the list of the matched objects as they were.
 */
async function deleteCollection(
  objects: ObjectStore,
  req: Request,
  res: Reply,
  route: Extract<Route, { kind: 'collection' }>,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  const options = await readDeleteOptions(req, query);
  const q = parseCollectionQuery(route, query);
  validateDeleteOptions(options);
  const store = objects.resource(route.resource);
  const doomed: KubernetesObject[] = [];
  for (const key of [...store.sortedKeys()]) {
    const entry = store.objects.get(key)!;
    if (q.matches === undefined || q.matches(entry.obj)) doomed.push(entry.obj);
  }
  const list = {
    kind: `${store.kind}List`,
    apiVersion: store.apiVersion,
    metadata: { resourceVersion: String(objects.rv) },
    items: doomed,
  };
  const request = deleteRequest(options);
  for (const o of doomed) {
    deleteObject(objects, route.resource, o.metadata?.namespace, o.metadata!.name!, request);
  }
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
