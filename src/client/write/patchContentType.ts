import { WatchError } from '../../WatchError.js';
import type { PatchType } from './ResourceApiOptions.js';

/** The media type of each kind of patch, and of a server-side apply. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = Object.freeze({
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
});

/** Server-side apply: YAML, of which JSON is a subset, so the body is sent as JSON. */
export const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';

/**
 * The content type of a patch of `type`, after checking the patch's shape: a JSON patch is an
 * array of operations, a merge or strategic merge patch an object. Anything else is refused
 * (BAD_REQUEST) before sending.
 *
 * @example
 * patchContentType(path, 'merge', { spec: { replicas: 2 } }); // 'application/merge-patch+json'
 */
export function patchContentType(path: string, type: unknown, patch: unknown): string {
  if (typeof type !== 'string' || !Object.hasOwn(PATCH_CONTENT_TYPES, type))
    throw WatchError.badRequest(path, "a patch's type must be 'merge', 'json' or 'strategic'");
  if (type === 'json') {
    if (!Array.isArray(patch))
      throw WatchError.badRequest(path, 'a JSON patch must be an array of operations');
  } else if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw WatchError.badRequest(path, `a ${type} patch must be a JSON object`);
  }
  return PATCH_CONTENT_TYPES[type as PatchType];
}
