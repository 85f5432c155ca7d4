import { mediaType, parseObject } from '../body.js';
import { decodeProtobufObject, PROTOBUF } from './envelope.js';

/**
 * The object of a create or an update, from its body: protobuf (kubectl sends built-in kinds
 * so on `kubectl create configmap|secret|deployment...`, and does not retry in JSON on a 415)
 * or JSON.
 */
export function parseRequestObject(
  body: Buffer,
  contentType: string | undefined,
): Record<string, unknown> {
  if (mediaType(contentType) === PROTOBUF) return decodeProtobufObject(body);
  return parseObject(body);
}
