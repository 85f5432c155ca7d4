import { WatchError } from '../../WatchError.js';
import { apiVersionOf } from '../../objects/resources.js';
import type { ResourceRef } from '../../types.js';

/** The fields of an object body that locate it. */
export interface ObjectFields {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
}

/**
 * Checks that `object` is an object with a metadata object, and returns a shallow copy with
 * `apiVersion` and `kind` filled from the ref when absent (the caller's object is not changed).
 * A value that differs from the ref's is refused (BAD_REQUEST): the server would answer 400,
 * and this says which. `requireKind`: a server-side apply body must carry a kind, so a ref
 * without one needs it in the configuration.
 *
 * @example
 * objectBody(deployments, { metadata: { name: 'web' } }, path, { requireKind: true });
 * // { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }
 */
export function objectBody<B extends ObjectFields>(
  resource: ResourceRef<unknown>,
  object: B,
  path: string,
  { requireKind = false, apiVersion = apiVersionOf(resource), kind = resource.kind } = {},
): B {
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    throw WatchError.badRequest(path, 'the object must be a JSON object');
  const metadata = object.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw WatchError.badRequest(path, 'the object needs a metadata object');
  if (object.apiVersion !== undefined && object.apiVersion !== apiVersion)
    throw WatchError.badRequest(
      path,
      `the object's apiVersion ${shown(object.apiVersion)} is not the resource's ${shown(apiVersion)}`,
    );
  if (object.kind !== undefined && kind !== undefined && object.kind !== kind)
    throw WatchError.badRequest(
      path,
      `the object's kind ${shown(object.kind)} is not the resource's ${shown(kind)}`,
    );
  const filledKind = object.kind ?? kind;
  if (requireKind && (typeof filledKind !== 'string' || filledKind === ''))
    throw WatchError.badRequest(
      path,
      'an apply needs a kind: give the configuration one, or a resource ref with kind',
    );
  return {
    ...object,
    apiVersion,
    ...(filledKind !== undefined && { kind: filledKind }),
  };
}

/** A short string as JSON; anything else only by its type (a body's content stays out of messages). */
function shown(value: unknown): string {
  return typeof value === 'string' && value.length <= 100 && /^[\x20-\x7e]*$/.test(value)
    ? JSON.stringify(value)
    : `(a ${typeof value})`;
}
