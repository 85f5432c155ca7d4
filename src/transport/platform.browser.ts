// The browser entry's platform (see platform.ts): the same exports and types, nothing of Node.
// The bundle of the browser entry (scripts/browserBundle.mjs) puts this module in place of
// platform.ts; spec/browser/platform.spec.ts checks that both have the same shape.

export { exchange } from './fetchExchange.js';
/** A whole answer's bytes as text: UTF-8 (TextDecoder; Node has a faster path for ASCII). */
export { utf8Text as bodyText } from './bytes.js';

/**
 * The browser decodes content encodings itself (and fetchExchange leaves `content-encoding`
 * out of the head): bodies come back as they are.
 *
 * @example
 * await decompress(bytes, undefined, limit); // bytes
 */
export async function decompress(
  bytes: Uint8Array,
  _encoding: string | undefined,
  _limit: number,
): Promise<Uint8Array> {
  return bytes;
}
