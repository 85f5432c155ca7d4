import type { KubernetesObject } from '../../types.js';
import { jsonEqual } from './jsonEqual.js';
import { admitCrd } from './crds.js';
import { validateEventCreate } from './validateEventCreate.js';
import type { Route } from './paths.js';
import { CRDS } from './ResourceTypes.js';
import type { ResourceTypes, ServedType } from './ResourceTypes.js';
import { StatusError, statusBody } from './statusBody.js';

type Obj = KubernetesObject & Record<string, unknown>;
type ResourceRoute = Extract<Route, { kind: 'object' | 'collection' }>;

function isCrds(route: ResourceRoute): boolean {
  return route.resource.group === CRDS.group && route.resource.plural === CRDS.plural;
}

function hasStatus(type: ServedType | undefined): boolean {
  return type?.subresources?.status === true;
}

/**
 * 404 for a resource whose CRD was deleted, and for a subresource the type does not serve
 * (`/status` of a type without one, `/scale` of anything but deployments and custom resources
 * with a scale subresource).
 */
export function checkServed(types: ResourceTypes, route: ResourceRoute): void {
  if (types.isRemoved(route.resource)) {
    throw new StatusError(statusBody(404, 'the server could not find the requested resource'));
  }
  const type = types.lookup(route.resource);
  if (route.kind !== 'object' || route.subresource === undefined) return;
  const served =
    route.subresource === 'status'
      ? hasStatus(type)
      : type?.subresources?.scale !== undefined ||
        (type?.builtin === true && type.group === 'apps' && type.plural === 'deployments');
  if (!served) {
    throw new StatusError(statusBody(404, 'the server could not find the requested resource'));
  }
}

/**
 * What the type's strategy does to a new object before it is stored (kube-apiserver's
 * `PrepareForCreate` and validation): a CRD is validated and gets its status; a resource with a
 * status subresource (custom, or built in: deployments, pods...) drops the status it was sent; an Event is validated as its API does.
 */
export function prepareCreate(type: ServedType | undefined, route: ResourceRoute, obj: Obj): void {
  if (isCrds(route)) admitCrd(obj);
  else if (hasStatus(type)) delete obj.status;
  else if (route.resource.plural === 'events' && type?.builtin === true) {
    validateEventCreate(obj, route.resource.group === 'events.k8s.io');
  }
}

/**
 * What the type's strategy does to an update (`PrepareForUpdate`): through `/status` only the
 * status changes (everything else is the stored object's); through the object, a type with a
 * status subresource keeps the stored status, and a CRD is validated and keeps its status as
 * its controllers set it.
 */
export function prepareUpdate(
  type: ServedType | undefined,
  route: Extract<Route, { kind: 'object' }>,
  before: Obj,
  next: Obj,
): void {
  if (route.subresource === 'status') {
    const status = next.status;
    const { resourceVersion, managedFields } = next.metadata ?? {};
    for (const key of Object.keys(next)) delete next[key];
    Object.assign(next, structuredClone(before));
    // The sent resourceVersion stays a precondition and the managed fields are the ones this
    // write tracked (kube-apiserver's status strategy keeps them); the rest is the stored one.
    next.metadata = { ...next.metadata, resourceVersion };
    if (managedFields !== undefined) next.metadata.managedFields = managedFields;
    if (status === undefined) delete next.status;
    else next.status = status;
    return;
  }
  if (isCrds(route)) {
    admitCrd(next, before);
    return;
  }
  if (!hasStatus(type)) return;
  if (before.status !== undefined) next.status = structuredClone(before.status);
  else delete next.status;
}

/**
 * Whether an update moves `metadata.generation`: a change outside metadata and status, and for
 * a custom resource without a status subresource a change of status too (its strategy compares
 * everything but metadata).
 */
export function specChanged(type: ServedType | undefined, before: Obj, next: Obj): boolean {
  const keepStatus = type !== undefined && !type.builtin && !hasStatus(type);
  const desired = (obj: Obj): Record<string, unknown> => {
    const { metadata: _m, status, apiVersion: _a, kind: _k, ...rest } = obj;
    return keepStatus ? { ...rest, status } : rest;
  };
  return !jsonEqual(desired(before), desired(next));
}
