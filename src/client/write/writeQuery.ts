import { WatchError } from '../../WatchError.js';

/** The longest field manager the server accepts, in bytes (apimachinery's FieldManagerMaxLength). */
const FIELD_MANAGER_MAX_BYTES = 128;
/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;

/** What a write's query carries. */
export interface WriteQueryOptions {
  fieldManager?: unknown;
  dryRun?: unknown;
  force?: unknown;
  /** Server-side apply: a field manager is required. */
  apply?: boolean;
}

/**
 * The query of a write (`dryRun=All`, `fieldManager`, `force=true`), each value checked as the
 * server checks it and encoded; a bad value throws a WatchError BAD_REQUEST, before sending.
 * The field manager is never echoed in the message (it could be anything).
 *
 * @example
 * writeQuery(path, { fieldManager: 'my-operator', force: true, apply: true }).toString();
 * // 'fieldManager=my-operator&force=true'
 */
export function writeQuery(
  path: string,
  { fieldManager, dryRun, force, apply = false }: WriteQueryOptions,
): URLSearchParams {
  const query = new URLSearchParams();
  if (dryRun !== undefined && typeof dryRun !== 'boolean')
    throw WatchError.badRequest(path, 'dryRun must be true or false');
  if (dryRun) query.set('dryRun', 'All');
  if (fieldManager === undefined || fieldManager === '') {
    if (apply) throw WatchError.badRequest(path, 'a server-side apply needs a fieldManager');
  } else {
    if (typeof fieldManager !== 'string')
      throw WatchError.badRequest(
        path,
        `fieldManager must be a string, not ${typeof fieldManager}`,
      );
    const bytes = new TextEncoder().encode(fieldManager).length;
    if (bytes > FIELD_MANAGER_MAX_BYTES)
      throw WatchError.badRequest(
        path,
        `fieldManager must be at most ${FIELD_MANAGER_MAX_BYTES} bytes, not ${bytes}`,
      );
    if (!PRINTABLE.test(fieldManager))
      throw WatchError.badRequest(path, 'fieldManager must be printable characters only');
    query.set('fieldManager', fieldManager);
  }
  if (force !== undefined && typeof force !== 'boolean')
    throw WatchError.badRequest(path, 'force must be true or false');
  if (force) {
    if (!apply) throw WatchError.badRequest(path, 'force is for a server-side apply only');
    query.set('force', 'true');
  }
  return query;
}
