import { isAscii } from 'node:buffer';
import { utf8Text } from './bytes.js';

/**
 * A whole answer's bytes as text, in Node. The API server's JSON is nearly always ASCII (it
 * escapes nothing else, but names, labels and specs rarely hold anything else), and ASCII is
 * its own Latin-1: checked and copied as a one-byte string several times faster than a UTF-8
 * decode, and the string JSON.parse then reads is a flat one-byte string. Anything else (a
 * byte-order mark, non-ASCII text) is decoded as UTF-8, exactly as before.
 *
 * @example
 * bodyText(new TextEncoder().encode('{"a":1}')); // '{"a":1}'
 */
export function bodyText(bytes: Uint8Array): string {
  if (!isAscii(bytes)) return utf8Text(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}
