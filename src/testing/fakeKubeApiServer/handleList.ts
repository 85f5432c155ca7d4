import type { KubernetesObject } from '../../types.js';
import type { Column } from './columns.js';
import { contentTypeOf } from './negotiate.js';
import type { Shape } from './negotiate.js';
import type { Reply } from './protocol.js';
import { sendJson, sendJsonParts } from './send.js';
import { entryBytes, tableJson } from './shapes.js';
import type { CollectionQuery } from './query.js';
import { compareKeys } from './ObjectStore.js';
import type { Entry, ObjectStore, ResourceStore } from './ObjectStore.js';
import { badRequest, StatusError, statusBody, tooOld } from './statusBody.js';

interface ContinueToken {
  v: 'meta.k8s.io/v1';
  rv: number;
  start: string;
}

function encodeContinue(rv: number, start: string): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv, start };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(raw: string): ContinueToken {
  try {
    const token = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as ContinueToken;
    if (
      token.v === 'meta.k8s.io/v1' &&
      Number.isInteger(token.rv) &&
      typeof token.start === 'string'
    ) {
      return token;
    }
  } catch {
    // answered below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion');
}

const COMMA = Buffer.from(',');
const END = Buffer.from(']}');

const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

/** The objects and version a list is served from; throws a 400/410 {@link StatusError}. */
function snapshot(
  objects: ObjectStore,
  store: ResourceStore,
  q: CollectionQuery,
): { rv: number; state: Map<string, Entry>; after?: string } {
  const current = objects.rv;
  if (q.continue !== undefined) {
    const token = decodeContinue(q.continue);
    const state = token.rv > current ? undefined : store.stateAt(token.rv, current);
    if (state === undefined) throw new StatusError(statusBody(410, EXPIRED_CONTINUE, 'Expired'));
    return { rv: token.rv, state, after: token.start };
  }
  const rv = q.resourceVersion;
  if (rv !== undefined && rv !== 0 && q.resourceVersionMatch === 'Exact') {
    const state = store.stateAt(rv, current);
    if (state === undefined) throw new StatusError(tooOld(rv, store.floor));
    return { rv, state };
  }
  return { rv: current, state: store.objects };
}

/** First index in sorted `keys` whose key is greater than `after`. */
function startIndex(keys: string[], after: string | undefined): number {
  if (after === undefined) return 0;
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Answers a list: items sorted by (namespace, name), `limit`/`continue` paging over a consistent
 * snapshot (the token carries the list's resourceVersion), `resourceVersionMatch=Exact` served
 * from the history, `remainingItemCount` when no selector is used.
 */
export function handleList(
  res: Reply,
  objects: ObjectStore,
  store: ResourceStore,
  q: CollectionQuery,
  headers: Record<string, string>,
  shape: Shape = { kind: 'object' },
  columns: Column[] = [],
): void {
  const { rv, state, after } = snapshot(objects, store, q);
  const keys = state === store.objects ? store.sortedKeys() : [...state.keys()].sort(compareKeys);
  const limit = q.limit !== undefined && q.limit > 0 ? q.limit : Infinity;
  // Each item's bytes, encoded once per object version: the list only copies them.
  const items: Buffer[] = [];
  const tableObjects: KubernetesObject[] = [];
  let lastKey: string | undefined;
  let remaining = 0;
  for (let i = startIndex(keys, after); i < keys.length; i++) {
    const entry = state.get(keys[i])!;
    if (q.matches !== undefined && !q.matches(entry.obj)) continue;
    if (items.length < limit) {
      items.push(entryBytes(entry, shape));
      if (shape.kind === 'table') tableObjects.push(entry.obj);
      lastKey = keys[i];
    } else if (q.matches === undefined) {
      // Nothing filters: the rest of the keys is the remaining count, no need to walk it.
      remaining = keys.length - i;
      break;
    } else {
      remaining++;
      if (q.selective) break;
    }
  }
  let meta = `{"resourceVersion":"${rv}"`;
  if (remaining > 0 && lastKey !== undefined) {
    meta += `,"continue":"${encodeContinue(rv, lastKey)}"`;
    if (!q.selective) meta += `,"remainingItemCount":${remaining}`;
  }
  meta += '}';
  if (shape.kind === 'table') {
    const table = tableJson(columns, tableObjects, shape.includeObject, meta);
    sendJson(res, 200, table, headers, contentTypeOf(shape, 'list'));
    return;
  }
  const [kind, apiVersion] =
    shape.kind === 'metadata'
      ? ['PartialObjectMetadataList', 'meta.k8s.io/v1']
      : [`${store.kind}List`, store.apiVersion];
  const head =
    `{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},` +
    `"metadata":${meta},"items":[`;
  const parts: Buffer[] = [Buffer.from(head, 'utf8')];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(items[i]);
  }
  parts.push(END);
  sendJsonParts(res, 200, parts, headers, contentTypeOf(shape, 'list'));
}
