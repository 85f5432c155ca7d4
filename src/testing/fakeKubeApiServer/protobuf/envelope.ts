import { StatusError, statusBody } from '../statusBody.js';
import { decodeMessage, UnsupportedMessage } from './decode.js';
import { MESSAGES } from './messages.generated.js';
import { readFields, WireError } from './wire.js';

/** The media type of Kubernetes' protobuf encoding. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The four bytes before every protobuf object: `k8s\0`. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The Go package of a group's types in its generated.proto (`rbac.authorization.k8s.io` → rbac). */
function protoPackage(group: string, version: string): string {
  const name = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').split('.')[0];
  return `k8s.io.api.${name}.${version}`;
}

function unsupported(message: string): StatusError {
  return new StatusError(
    statusBody(
      415,
      `${message}: the fake API server decodes protobuf only for the kinds kubectl create sends; send application/json`,
      'UnsupportedMediaType',
    ),
  );
}

function undecodable(why: string): StatusError {
  return new StatusError(
    statusBody(400, `the body of the request could not be decoded: ${why}`, 'BadRequest'),
  );
}

function str(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : '';
}

/**
 * Decodes a `application/vnd.kubernetes.protobuf` body, the `k8s\0` magic then a
 * `runtime.Unknown` {typeMeta {apiVersion, kind}, raw, contentEncoding, contentType} whose raw
 * bytes are the object's message, to the object's JSON form (apiVersion and kind first). A kind
 * the tables do not cover is a 415 (kube-apiserver decodes every built-in kind); a malformed
 * body is a 400.
 */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw undecodable('protobuf body without the k8s\\0 prefix');
  }
  try {
    const unknown = new Map(readFields(body.subarray(MAGIC.length)).map((f) => [f.no, f.value]));
    const typeMeta = unknown.get(1);
    const meta = Buffer.isBuffer(typeMeta)
      ? new Map(readFields(typeMeta).map((f) => [f.no, f.value]))
      : new Map();
    const apiVersion = str(meta.get(1));
    const kind = str(meta.get(2));
    if (str(unknown.get(3)) !== '') throw unsupported(`contentEncoding ${str(unknown.get(3))}`);
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const type = `${protoPackage(group, apiVersion.slice(slash + 1))}.${kind}`;
    if (kind === '' || !(type in MESSAGES)) {
      throw unsupported(`${kind || 'an object without a kind'} (${apiVersion}) as protobuf`);
    }
    const raw = unknown.get(2);
    const obj = decodeMessage(type, Buffer.isBuffer(raw) ? raw : Buffer.alloc(0));
    return { apiVersion, kind, ...obj };
  } catch (e) {
    if (e instanceof StatusError) throw e;
    if (e instanceof UnsupportedMessage) throw unsupported(e.message);
    if (e instanceof WireError || e instanceof SyntaxError) throw undecodable(e.message);
    throw e;
  }
}
