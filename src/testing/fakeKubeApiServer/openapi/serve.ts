import type { Reply } from '../protocol.js';
import type { ResourceTypes } from '../resourceTypes.js';
import { sendJson } from '../send.js';
import { StatusError, statusBody } from '../statusBody.js';
import { OpenApiDocuments } from './documents.js';

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

/**
 * Answers `/openapi/v2`, `/openapi/v3` (the index) and `/openapi/v3/<group version>`, always in
 * JSON: kube-apiserver also offers them as protobuf (kubectl asks for /openapi/v2 so), which the
 * fake does not encode. Returns false for any other path; a group version the server does not
 * serve is a 404.
 */
export function answerOpenApi(
  res: Reply,
  path: string,
  types: ResourceTypes,
  headers: Record<string, string>,
): boolean {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed !== '/openapi/v2' && !/^\/openapi\/v3(\/|$)/.test(trimmed)) return false;
  const docs = openApiDocuments(types);
  if (trimmed === '/openapi/v2') {
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
