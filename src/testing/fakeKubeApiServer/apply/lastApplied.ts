import type { Tracking } from './fieldManager.js';
import type { PathSet } from './fieldPath.js';
import { compare, fieldSet, isMap } from './typedValue.js';

/** The annotation client-side `kubectl apply` keeps its last configuration in. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** kube-apiserver's limit on the total size of an object's annotations. */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };

function annotationsOf(obj: Obj | undefined): Record<string, string> | undefined {
  const a = obj?.metadata?.annotations;
  return isMap(a) ? (a as Record<string, string>) : undefined;
}

/**
 * The fields `kubectl apply --server-side` may take over from client-side apply without a
 * conflict, as kube-apiserver allows the upgrade: those of the live object's last-applied
 * configuration whose value is still the live one. Undefined when there is no such annotation.
 */
export function lastAppliedRelief(live: Obj | undefined, t: Tracking): PathSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED];
  if (live === undefined || text === undefined || text === '') return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isMap(last) || last.apiVersion !== t.apiVersion) return undefined;
  const c = compare(last, live, t.type, t.always);
  return fieldSet(last, t.type).difference(c.modified).difference(c.added).difference(c.removed);
}

/** JSON with sorted keys and a final newline, as Go encodes an unstructured object. */
function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted);
    if (!isMap(x)) return x;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(x).sort()) out[k] = sorted(x[k]);
    return out;
  };
  return `${JSON.stringify(sorted(v))}\n`;
}

/**
 * After a server-side apply by `kubectl`, an object that keeps a last-applied annotation gets
 * the applied configuration in it, so a later client-side apply starts from it (as
 * kube-apiserver's lastAppliedUpdater does). Changes `obj` in place.
 */
export function syncLastApplied(obj: Obj, config: Obj): void {
  const annotations = annotationsOf(obj);
  if (annotations?.[LAST_APPLIED] === undefined || annotations[LAST_APPLIED] === '') return;
  const applied = structuredClone(config);
  const appliedAnnotations = annotationsOf(applied);
  if (appliedAnnotations !== undefined) delete appliedAnnotations[LAST_APPLIED];
  const next = { ...annotations, [LAST_APPLIED]: goJson(applied) };
  const size = Object.entries(next).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
    0,
  );
  // Past the annotations' size limit the server drops the annotation rather than fail.
  const { [LAST_APPLIED]: _dropped, ...without } = next;
  obj.metadata = { ...obj.metadata, annotations: size > ANNOTATIONS_MAX_BYTES ? without : next };
}
