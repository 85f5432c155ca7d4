import type { Request } from './protocol.js';
import { badRequest, StatusError, statusBody } from './statusBody.js';

/** kube-apiserver's default `--max-request-body-bytes` (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads a request body; past `limit` bytes it answers 413 (and reads no more). */
export function readBody(req: Request, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(new StatusError(statusBody(413, `the request body is larger than ${limit} bytes`)));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** The media type of a Content-Type header, lower case and without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Parses a JSON body (400 as the API server answers for unreadable data). */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded: ${(e as Error).message}`);
  }
}

/** Parses a JSON body that must be an object (the object of a create or an update). */
export function parseObject(body: Buffer): Record<string, unknown> {
  const value = parseJson(body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest("Object 'Kind' is missing in the request body: not a JSON object");
  }
  return value as Record<string, unknown>;
}
