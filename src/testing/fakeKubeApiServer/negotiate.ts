import { StatusError, statusBody } from './statusBody.js';

/** What a request asked to receive for objects (kube-apiserver's `as=` transformations). */
export type Shape =
  | { kind: 'object' }
  | { kind: 'metadata' }
  | { kind: 'table'; includeObject: 'None' | 'Metadata' | 'Object' };

/** The scope of a GET: one object, a list, or a watch. */
export type Scope = 'object' | 'list' | 'watch';

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(accept: string): MediaRange[] {
  return accept
    .split(',')
    .map((part) => {
      const [type, ...rest] = part.split(';').map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: type.toLowerCase(), params };
    })
    .filter((r) => r.type !== '');
}

function includeObject(value: string | undefined): 'None' | 'Metadata' | 'Object' {
  if (value === undefined || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw new StatusError(
    statusBody(400, `includeObject: Unsupported value: "${value}"`, 'BadRequest'),
  );
}

/**
 * The shape a GET answers in, from its Accept header: the first acceptable media range wins,
 * as in kube-apiserver. `as=PartialObjectMetadata` (objects and watches) and
 * `as=PartialObjectMetadataList` (lists) give metadata only; `as=Table` gives a Table (v1 or
 * v1beta1, group meta.k8s.io). Plain JSON or `*\/*` give objects; nothing acceptable is 406.
 */
export function negotiate(
  accept: string | undefined,
  scope: Scope,
  query: Record<string, string>,
): Shape {
  if (accept === undefined || accept.trim() === '') return { kind: 'object' };
  for (const { type, params } of parseAccept(accept)) {
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const as = params.as;
    if (as === undefined) return { kind: 'object' };
    if (params.g !== 'meta.k8s.io' || !['v1', 'v1beta1'].includes(params.v ?? '')) continue;
    if (as === 'Table') return { kind: 'table', includeObject: includeObject(query.includeObject) };
    if (as === 'PartialObjectMetadata' && scope !== 'list') return { kind: 'metadata' };
    if (as === 'PartialObjectMetadataList' && scope === 'list') return { kind: 'metadata' };
  }
  throw new StatusError(
    statusBody(
      406,
      `only the following media types are accepted: application/json`,
      'NotAcceptable',
    ),
  );
}

/** The Content-Type of an answer in `shape` (`scope` says list or single object). */
export function contentTypeOf(shape: Shape, scope: Scope): string {
  if (shape.kind === 'object') return 'application/json';
  if (shape.kind === 'table') return 'application/json;as=Table;v=v1;g=meta.k8s.io';
  const as = scope === 'list' ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
  return `application/json;as=${as};g=meta.k8s.io;v=v1`;
}
