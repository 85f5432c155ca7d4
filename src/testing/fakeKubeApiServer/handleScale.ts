import type { V1Deployment } from '@kubernetes/client-node';
import { checkWriteOptions, managerOf, trackUpdate } from './apply/track.js';
import { mediaType, parseJson, parseObject, readBody } from './body.js';
import type { ScaleSubresource } from '../../objects/ResourceType.js';
import { customScale, setPath } from './customScale.js';
import type { Scale } from './customScale.js';
import { objectKey } from './ObjectStore.js';
import type { Entry } from './ObjectStore.js';
import { applyPatch } from './patch.js';
import type { Route } from './paths.js';
import type { Reply, Request } from './protocol.js';
import { sendJson } from './send.js';
import { badRequest, StatusError, statusBody } from './statusBody.js';
import { commitUpdate, current, dryRun, methodNotAllowed } from './writes.js';
import type { WriteContext } from './writes.js';

type ScaleRoute = Extract<Route, { kind: 'object' }>;

/** `app=web,tier=front`: a deployment's matchLabels as the Scale's selector string. */
function selectorOf(d: V1Deployment): string | undefined {
  const labels = d.spec?.selector?.matchLabels;
  if (labels === undefined) return undefined;
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The autoscaling/v1 Scale of a deployment entry, or of a custom resource's by its paths. */
function scaleOf(entry: Entry, paths?: ScaleSubresource): Scale {
  if (paths !== undefined) return customScale(entry, paths);
  const d = entry.obj as V1Deployment;
  const m = d.metadata ?? {};
  const scale: Scale = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: String(entry.rv),
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: d.spec?.replicas ?? 1 },
    status: { replicas: d.status?.replicas ?? 0 },
  };
  const selector = selectorOf(d);
  if (selector !== undefined) scale.status.selector = selector;
  return scale;
}

/** Sets the deployment's replicas from a Scale (its resourceVersion is a precondition). */
function applyScale(
  ctx: WriteContext,
  route: ScaleRoute,
  prev: Entry,
  scale: unknown,
  dry: boolean,
  manager: string,
): Scale {
  const s = scale as Partial<Scale> | null;
  const replicas = s?.spec?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new StatusError(
      statusBody(
        422,
        `Scale.autoscaling "${route.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
        'Invalid',
      ),
    );
  }
  const paths = ctx.types.lookup(route.resource)?.subresources?.scale;
  const next = structuredClone(prev.obj) as V1Deployment & Record<string, unknown>;
  if (paths !== undefined) setPath(next, paths.specReplicasPath, replicas);
  else next.spec = { ...next.spec!, replicas };
  const rv = s?.metadata?.resourceVersion;
  next.metadata = { ...next.metadata, resourceVersion: typeof rv === 'string' ? rv : undefined };
  trackUpdate(ctx, route.resource, prev.obj, next, manager, 'scale');
  const updated = commitUpdate(ctx, { ...route, subresource: undefined }, prev, next, dry);
  if (dry) return scaleOf({ ...prev, obj: updated.obj }, paths);
  return scaleOf(
    ctx.objects.resource(route.resource).objects.get(objectKey(route.namespace, route.name))!,
    paths,
  );
}

/**
 * GET, PUT and PATCH of `deployments/{name}/scale` and of a custom resource's scale subresource
 * (what `kubectl scale` uses).
 */
export async function handleScale(
  ctx: WriteContext,
  req: Request,
  res: Reply,
  route: ScaleRoute,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<void> {
  const method = req.method ?? 'GET';
  const paths = ctx.types.lookup(route.resource)?.subresources?.scale;
  if (method === 'GET') {
    sendJson(res, 200, scaleOf(current(ctx, route), paths), headers);
    return;
  }
  if (method !== 'PUT' && method !== 'PATCH') throw methodNotAllowed();
  const body = await readBody(req);
  checkWriteOptions(query, method === 'PUT' ? 'UpdateOptions' : 'PatchOptions');
  const prev = current(ctx, route);
  const dry = dryRun(query);
  let scale: unknown;
  if (method === 'PUT') {
    scale = parseObject(body);
    const name = (scale as Scale).metadata?.name;
    if (name !== undefined && name !== route.name) {
      throw badRequest(
        `the name of the object (${String(name)}) does not match the name on the URL (${route.name})`,
      );
    }
  } else {
    const type = mediaType(req.headers['content-type']);
    scale = applyPatch(type, scaleOf(prev, paths), parseJson(body), {});
  }
  sendJson(res, 200, applyScale(ctx, route, prev, scale, dry, managerOf(req, query)), headers);
}
