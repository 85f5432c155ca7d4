import { WatchError } from '../../WatchError.js';
import type { DeleteOptions } from './ResourceApiOptions.js';

const POLICIES = new Set(['Background', 'Foreground', 'Orphan']);

/** A `meta.k8s.io/v1` DeleteOptions body, as client-go sends it. */
export interface DeleteOptionsBody {
  kind: 'DeleteOptions';
  apiVersion: 'v1';
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  /** `['All']` for a dry run: kube-apiserver reads the body's options, not the query's. */
  dryRun?: ['All'];
}

/**
 * The DeleteOptions body of a delete, each option checked (BAD_REQUEST before sending): a
 * known propagation policy, string preconditions, a whole number of seconds >= 0.
 *
 * @example
 * deleteBody(path, { propagationPolicy: 'Foreground', preconditions: { uid } });
 */
export function deleteBody(
  path: string,
  { propagationPolicy, preconditions, gracePeriodSeconds, dryRun }: DeleteOptions,
): DeleteOptionsBody {
  const body: DeleteOptionsBody = { kind: 'DeleteOptions', apiVersion: 'v1' };
  // client-go sends a delete's options in its body only; the query keeps dryRun=All as well,
  // so that a log of the request shows it.
  if (dryRun === true) body.dryRun = ['All'];
  if (propagationPolicy !== undefined) {
    if (!POLICIES.has(propagationPolicy))
      throw WatchError.badRequest(
        path,
        "propagationPolicy must be 'Background', 'Foreground' or 'Orphan'",
      );
    body.propagationPolicy = propagationPolicy;
  }
  if (preconditions !== undefined) {
    const { uid, resourceVersion } = preconditions ?? {};
    if (
      typeof preconditions !== 'object' ||
      preconditions === null ||
      (uid !== undefined && typeof uid !== 'string') ||
      (resourceVersion !== undefined && typeof resourceVersion !== 'string')
    )
      throw WatchError.badRequest(
        path,
        'preconditions are { uid?: string, resourceVersion?: string }',
      );
    body.preconditions = {
      ...(uid !== undefined && { uid }),
      ...(resourceVersion !== undefined && { resourceVersion }),
    };
  }
  if (gracePeriodSeconds !== undefined) {
    if (!Number.isSafeInteger(gracePeriodSeconds) || gracePeriodSeconds < 0)
      throw WatchError.badRequest(path, 'gracePeriodSeconds must be a whole number >= 0');
    body.gracePeriodSeconds = gracePeriodSeconds;
  }
  return body;
}
