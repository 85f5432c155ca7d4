import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';

/** Decoders of the content encodings a list answer may come in, each bounded in output. */
const DECODERS: Record<
  string,
  (bytes: Uint8Array, options: { maxOutputLength: number }) => Promise<Uint8Array>
> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/**
 * A whole body decoded from its `content-encoding` (gzip, deflate, br), at most `limit` bytes
 * out (beyond, it rejects); a body in another encoding, or none, comes back as it is.
 *
 * @example
 * const text = utf8Text(await decompress(bytes, 'gzip', 64 << 20));
 */
export async function decompress(
  bytes: Uint8Array,
  encoding: string | undefined,
  limit: number,
): Promise<Uint8Array> {
  const decode = encoding ? DECODERS[encoding] : undefined;
  return decode ? decode(bytes, { maxOutputLength: limit }) : bytes;
}
