import type { KubernetesObject } from '../../types.js';
import type { Column } from './columns.js';
import type { Entry } from './ObjectStore.js';
import { contentTypeOf } from './negotiate.js';
import type { Shape } from './negotiate.js';
import type { WatchShape } from './ServedWatch.js';

const partialCache = new WeakMap<Entry, string>();
const fullBytes = new WeakMap<Entry, Buffer>();
const partialBytes = new WeakMap<Entry, Buffer>();

/** An object reduced to its metadata, as the API server's PartialObjectMetadata. */
export function partialOf(obj: KubernetesObject): KubernetesObject {
  return {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadata',
    metadata: obj.metadata ?? {},
  };
}

/** The JSON of an entry in a metadata answer (cached per entry, like its full JSON). */
export function partialJson(entry: Entry): string {
  let json = partialCache.get(entry);
  if (json === undefined) {
    json = JSON.stringify(partialOf(entry.obj));
    partialCache.set(entry, json);
  }
  return json;
}

/** The JSON of an entry as `shape` wants it (not for Tables). */
export function entryJson(entry: Entry, shape: Shape): string {
  return shape.kind === 'metadata' ? partialJson(entry) : entry.json;
}

/**
 * The UTF-8 bytes of an entry as `shape` wants it (not for Tables), encoded once per entry (an
 * entry is one version of an object): a list copies bytes instead of joining and re-encoding
 * strings, and no list, however long, has to fit in one string.
 */
export function entryBytes(entry: Entry, shape: Shape): Buffer {
  const cache = shape.kind === 'metadata' ? partialBytes : fullBytes;
  let bytes = cache.get(entry);
  if (bytes === undefined) {
    bytes = Buffer.from(entryJson(entry, shape), 'utf8');
    cache.set(entry, bytes);
  }
  return bytes;
}

/** A metav1.Table of `objects` with `columns`; `metadata` is the list metadata JSON. */
export function tableJson(
  columns: Column[],
  objects: KubernetesObject[],
  includeObject: 'None' | 'Metadata' | 'Object',
  metadata: string,
): string {
  const now = Date.now();
  const definitions = columns.map(({ name, type, format, description, priority }) => ({
    name,
    type,
    format,
    description,
    priority,
  }));
  const rows = objects.map((obj) => {
    const row: Record<string, unknown> = { cells: columns.map((c) => c.cell(obj, now)) };
    if (includeObject === 'Object') row.object = obj;
    else if (includeObject === 'Metadata') row.object = partialOf(obj);
    return JSON.stringify(row);
  });
  return (
    `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":${metadata},` +
    `"columnDefinitions":${JSON.stringify(definitions)},"rows":[${rows.join(',')}]}`
  );
}

/** The encoder of a watch whose objects are metadata or Tables; undefined for full objects. */
export function watchShape(shape: Shape, columns: Column[]): WatchShape | undefined {
  if (shape.kind === 'object') return undefined;
  if (shape.kind === 'metadata') {
    return {
      contentType: contentTypeOf(shape, 'watch'),
      object: (entry, rv) =>
        rv === undefined ? partialJson(entry) : JSON.stringify(partialOf(atVersion(entry.obj, rv))),
      bookmark: (object) => JSON.stringify(partialOf(object)),
    };
  }
  return {
    contentType: contentTypeOf(shape, 'watch'),
    object: (entry, rv) => {
      const obj = rv === undefined ? entry.obj : atVersion(entry.obj, rv);
      const meta = JSON.stringify({ resourceVersion: obj.metadata?.resourceVersion ?? '' });
      return tableJson(columns, [obj], shape.includeObject, meta);
    },
    bookmark: (object) =>
      tableJson(
        [],
        [],
        'None',
        JSON.stringify({ resourceVersion: object.metadata?.resourceVersion ?? '' }),
      ),
  };
}

function atVersion(obj: KubernetesObject, rv: number): KubernetesObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
}

/** The body of a GET of one object in `shape`. */
export function objectBody(shape: Shape, entry: Entry, columns: Column[]): string {
  if (shape.kind === 'object') return entry.json;
  if (shape.kind === 'metadata') return partialJson(entry);
  const meta = JSON.stringify({ resourceVersion: String(entry.rv) });
  return tableJson(columns, [entry.obj], shape.includeObject, meta);
}
