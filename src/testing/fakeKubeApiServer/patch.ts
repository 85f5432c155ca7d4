import { jsonPatch, mergePatch } from './jsonPatch.js';
import type { Schema } from './patchSchemas.js';
import { StatusError, statusBody } from './statusBody.js';
import { strategicMerge } from './strategicMerge.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
/** Server-side apply (apply/applyRequest.ts answers it). */
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** 415 for a patch type the server does not apply to this resource. */
function unsupported(types: string[]): StatusError {
  return new StatusError(
    statusBody(
      415,
      `the body of the request was in an unknown format - accepted media types include: ${types.join(', ')}`,
      'UnsupportedMediaType',
    ),
  );
}

/** Throws 415 unless the server applies patches of media type `type` to this resource. */
export function assertPatchType(type: string, strategic: Schema | undefined): void {
  if (type === MERGE_PATCH || type === JSON_PATCH) return;
  if (type === STRATEGIC_MERGE_PATCH && strategic !== undefined) return;
  const accepted = [JSON_PATCH, MERGE_PATCH];
  if (strategic !== undefined) accepted.push(STRATEGIC_MERGE_PATCH);
  accepted.push(APPLY_PATCH);
  throw unsupported(accepted);
}

/**
 * Applies a PATCH body of media type `type` to `current`: JSON merge patch, JSON patch, and
 * strategic merge patch when the resource has a schema (the built-in kinds); anything else is
 * 415 (server-side apply is answered before this, by apply/applyRequest.ts).
 */
export function applyPatch(
  type: string,
  current: unknown,
  patch: unknown,
  strategic: Schema | undefined,
): unknown {
  assertPatchType(type, strategic);
  if (type === MERGE_PATCH) return mergePatch(current, patch);
  if (type === JSON_PATCH) return jsonPatch(current, patch);
  return strategicMerge(current, patch, strategic!);
}
