import { pods } from '../../objects/resources.js';
import { columnsFor } from './columns.js';
import { handleList } from './handleList.js';
import { contentTypeOf, negotiate } from './negotiate.js';
import { sendJson } from './send.js';
import { objectBody, watchShape } from './shapes.js';
import { objectKey } from './ObjectStore.js';
import type { Route } from './paths.js';
import { describeResourcePath } from '../../objects/resourcePath.js';
import { parseLogQuery } from './PodLogs.js';
import type { Reply } from './protocol.js';
import { parseCollectionQuery } from './query.js';
import type { ServerContext } from './ServerContext.js';
import { StatusError, statusBody, tooLarge } from './statusBody.js';
import { ServedWatch } from './ServedWatch.js';

function notFound(plural: string, name: string): StatusError {
  return new StatusError(
    statusBody(404, `${plural} "${name}" not found`, 'NotFound', { name, kind: plural }),
  );
}

/** GET of a resource path: an object, a list, a watch or a pod log. */
export function handleRead(
  ctx: ServerContext,
  res: Reply,
  route: Route,
  query: Record<string, string>,
  headers: Record<string, string>,
  accept: string | undefined,
): void {
  if (route.kind === 'log') {
    const known =
      ctx.objects.resource(pods).objects.has(objectKey(route.namespace, route.name)) ||
      ctx.logs.has(route.namespace, route.name);
    if (!known) throw notFound('pods', route.name);
    ctx.logs.serve(res, route.namespace, route.name, parseLogQuery(query), headers);
    return;
  }
  const q = parseCollectionQuery(route, query);
  if (q.resourceVersion !== undefined && q.resourceVersion > ctx.objects.rv) {
    throw new StatusError(tooLarge(q.resourceVersion, ctx.objects.rv));
  }
  const store = ctx.objects.resource(route.resource);
  const shape = negotiate(
    accept,
    q.watch ? 'watch' : route.kind === 'object' ? 'object' : 'list',
    query,
  );
  const type = ctx.types.lookup(route.resource);
  const columns =
    shape.kind === 'table'
      ? columnsFor(store.kind, type?.builtin ?? false, type?.printerColumns ?? [])
      : [];
  if (q.watch) {
    const watch = new ServedWatch(res, ctx.objects, store, q, {
      bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      headers,
      takePlan: () =>
        ctx.faults.takeWatchPlan(describeResourcePath(route.resource, route.namespace)),
      onClose: (w) => ctx.watches.delete(w),
      shape: watchShape(shape, columns),
    });
    ctx.watches.add(watch);
    watch.start();
    return;
  }
  if (route.kind === 'object') {
    const entry = store.objects.get(objectKey(route.namespace, route.name));
    if (entry === undefined) throw notFound(route.resource.plural, route.name);
    sendJson(res, 200, objectBody(shape, entry, columns), headers, contentTypeOf(shape, 'object'));
    return;
  }
  handleList(res, ctx.objects, store, q, headers, shape, columns);
}
