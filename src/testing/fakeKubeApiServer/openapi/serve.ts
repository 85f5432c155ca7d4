import type { Reply } from '../protocol.js';
import type { ResourceTypes } from '../ResourceTypes.js';
import { sendJson } from '../send.js';
import { StatusError, statusBody } from '../statusBody.js';
import { OpenApiDocuments } from './documents.js';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_TYPES } from './v2Protobuf.js';

// One set of documents per server (its ResourceTypes), without a field in the shared context.
const documents = new WeakMap<ResourceTypes, OpenApiDocuments>();

/** The OpenAPI documents of a server's types (built lazily, cached until the types change). */
export function openApiDocuments(types: ResourceTypes): OpenApiDocuments {
  let docs = documents.get(types);
  if (docs === undefined) {
    docs = new OpenApiDocuments(types);
    documents.set(types, docs);
  }
  return docs;
}

/** Whether an Accept header prefers /openapi/v2's protobuf to JSON (kubectl asks only for it). */
function wantsProtobuf(accept: string | undefined): boolean {
  for (const range of (accept ?? '').split(',')) {
    const type = range.split(';')[0].trim().toLowerCase();
    if (OPENAPI_V2_PROTOBUF_TYPES.includes(type)) return true;
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return false;
  }
  return false;
}

/**
 * Answers `/openapi/v2` (JSON, or gnostic's protobuf when the Accept header prefers it, as
 * kubectl's v2 client asks), `/openapi/v3` (the index) and `/openapi/v3/<group version>`
 * (JSON; kube-apiserver also offers those as protobuf, which kubectl does not ask for).
 * Returns false for any other path; a group version the server does not serve is a 404.
 */
export function answerOpenApi(
  res: Reply,
  path: string,
  types: ResourceTypes,
  headers: Record<string, string>,
  accept?: string,
): boolean {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed !== '/openapi/v2' && !/^\/openapi\/v3(\/|$)/.test(trimmed)) return false;
  const docs = openApiDocuments(types);
  if (trimmed === '/openapi/v2') {
    if (wantsProtobuf(accept)) {
      const body = docs.v2Protobuf();
      res.writeHead(200, {
        ...headers,
        'Content-Type': OPENAPI_V2_PROTOBUF,
        'Content-Length': body.length,
      });
      res.end(body);
      return true;
    }
    sendJson(res, 200, docs.v2(), headers);
    return true;
  }
  if (trimmed === '/openapi/v3') {
    sendJson(res, 200, docs.index(), headers);
    return true;
  }
  const doc = docs.v3(trimmed.slice('/openapi/v3/'.length));
  if (doc === undefined) {
    throw new StatusError(statusBody(404, 'the server could not find the requested resource'));
  }
  sendJson(res, 200, doc.json, headers);
  return true;
}
